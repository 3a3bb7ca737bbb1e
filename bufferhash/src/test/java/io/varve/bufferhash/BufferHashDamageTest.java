package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.files.FileTrees;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damages one file of a closed BufferHash (a changed byte, a truncation, a missing file) and
 * reopens it, and every other time also changes a byte of the log under the open table: the open
 * fails with {@link CorruptStoreException}, or every key still answers its exact value, or a
 * lookup fails with {@link CorruptStoreException}. Never another answer.
 */
class BufferHashDamageTest {
  @TempDir Path temp;

  @Test
  void damageIsReportedNeverServed() throws IOException {
    long seed = Long.getLong("varve.bufferhash.fuzz.seed", 0xDA3A6EL);
    int iterations = Integer.getInteger("varve.bufferhash.fuzz.iterations", 300);
    System.out.println("BufferHashDamageTest seed " + seed + ", " + iterations + " iterations");
    Random random = new Random(seed);
    Path pristine = temp.resolve("pristine");
    List<byte[]> keys = BufferHashModelTest.keyUniverse(random, 3_000);
    List<byte[]> values = new ArrayList<>();
    BufferHashBuilder builder = BufferHash.builder(pristine).logBytes(2 << 20).memoryBytes(512 * 1024).entryBytes(40).bufferBytes(8192).superTables(4);
    try (BufferHash table = builder.open()) {
      for (byte[] key : keys) {
        byte[] value = BufferHashModelTest.value(random);
        values.add(value);
        table.put(key, value);
      }
      assertTrue(table.stats().flushes() > 10);
      assertEquals(0, table.stats().evictedIncarnations(), "this test needs every key kept");
    }
    long usedLogBytes = Files.size(pristine.resolve("log"));
    try (BufferHash table = builder.open()) {
      usedLogBytes = Math.min(usedLogBytes, table.logPages()[0] * LogFormat.PAGE_BYTES + LogFormat.PAGE_BYTES);
    }
    int rejectedOnOpen = 0;
    int reportedByLookup = 0;
    int unharmed = 0;
    for (int iteration = 0; iteration < iterations; iteration++) {
      Path copy = temp.resolve("copy");
      FileTrees.deleteTree(copy);
      FileTrees.copyTree(pristine, copy);
      String damage = damage(copy, random, usedLogBytes);
      BufferHash table;
      try {
        table = BufferHash.builder(copy).memoryBytes(512 * 1024).entryBytes(40).bufferBytes(8192).open();
      } catch (CorruptStoreException e) {
        rejectedOnOpen++;
        continue;
      }
      boolean liveDamage = iteration % 2 == 1;
      if (liveDamage) {
        // Damage under the open table: its lookups read the log as it is now.
        damageLog(copy, random, usedLogBytes);
      }
      boolean reported = false;
      try (table) {
        for (int i = 0; i < keys.size(); i++) {
          try {
            assertArrayEquals(values.get(i), table.get(keys.get(i)), "after " + damage + ": key " + i);
          } catch (CorruptStoreException e) {
            reported = true;
          }
        }
      }
      if (reported) {
        reportedByLookup++;
        assertTrue(liveDamage, "a table that opened cleanly reported damage");
      } else {
        unharmed++;
      }
    }
    System.out.println(
        "BufferHashDamageTest: " + rejectedOnOpen + " rejected on open, " + reportedByLookup + " reported by a lookup, " + unharmed + " unharmed");
    assertTrue(rejectedOnOpen > 0 && reportedByLookup > 0, "the damage never reached a checked structure");
  }

  private static String damage(Path dir, Random random, long usedLogBytes) throws IOException {
    String[] files = {"log", "log", "log", "log", "state", "buffers"};
    Path file = dir.resolve(files[random.nextInt(files.length)]);
    long size = Files.size(file);
    int kind = random.nextInt(20);
    if (kind == 0) {
      Files.delete(file);
      return "deleting " + file.getFileName();
    }
    if (kind == 1) {
      long length = random.nextLong() & (size - 1);
      try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
        raf.setLength(Math.min(length, size - 1));
      }
      return "truncating " + file.getFileName() + " to " + length;
    }
    long limit = file.getFileName().toString().equals("log") ? Math.min(size, usedLogBytes) : size;
    long at = (long) (random.nextDouble() * limit);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(at);
      int old = raf.read();
      raf.seek(at);
      raf.write(old ^ (1 + random.nextInt(255)));
    }
    return "changing byte " + at + " of " + file.getFileName();
  }

  private static void damageLog(Path dir, Random random, long usedLogBytes) throws IOException {
    long at = (long) (random.nextDouble() * usedLogBytes);
    try (RandomAccessFile raf = new RandomAccessFile(dir.resolve("log").toFile(), "rw")) {
      raf.seek(at);
      int old = raf.read();
      raf.seek(at);
      raf.write(old ^ (1 + random.nextInt(255)));
    }
  }
}
