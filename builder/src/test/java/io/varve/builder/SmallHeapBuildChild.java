package io.varve.builder;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A build with every option at its default, run by {@link SmallHeapBuildTest} in a JVM with a small
 * heap: {@code records} records of 1,000-byte values into the store at {@code args[0]}. Prints the
 * budget it used and the records built.
 */
public final class SmallHeapBuildChild {
  private SmallHeapBuildChild() {}

  public static void main(String[] args) throws Exception {
    int records = Integer.parseInt(args[1]);
    byte[] value = new byte[1000];
    try (StoreBuilder builder = StoreBuilder.create(Path.of(args[0]))) {
      for (int i = 0; i < records; i++) {
        value[0] = (byte) i;
        builder.put(("key-" + i).getBytes(StandardCharsets.UTF_8), value);
      }
      System.out.println("budget " + BuildOptions.defaultMemoryBudget() + " built " + builder.build().meta().recordCount());
    }
  }
}
