package io.varve.reader;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * Run by {@link NoJvmOptionsTest} in a JVM without Chronicle's options: opens a store both ways,
 * checks every record against the records of the seed it was built from, and prints what it saw.
 */
final class NoJvmOptionsChild {
  private NoJvmOptionsChild() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    Map<ByteBuffer, byte[]> records = NoJvmOptionsTest.records(Long.parseLong(args[1]));
    System.out.println("granted " + ChronicleAccess.isGranted());
    for (DataAccess access : DataAccess.values()) {
      int found = 0;
      try (Store store = Store.open(dir, access)) {
        store.verify();
        for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
          if (Arrays.equals(e.getValue(), store.get(e.getKey().array()))) {
            found++;
          }
        }
      }
      System.out.println(access + " found " + found + " of " + records.size());
    }
  }
}
