package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.ChildJvm;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Close writes the buffers file from buffers that take most of the heap. It built the whole file
 * in one growing array first (two to three times the buffers' live bytes at its peak), and a
 * 96 MiB heap whose buffers held about 26 MiB died in close with {@link OutOfMemoryError}, losing
 * the buffers; it now streams the file through a small buffer. The child JVM writes and closes the
 * table; this JVM reopens it and compares it with a map of the same writes.
 */
class BufferHashSmallHeapCloseTest {
  private static final String HEAP = "96m";
  private static final long SEED = 0x5eedc105eL;
  private static final int KEYS = 12_000;
  private static final int WRITES = 12_000;

  @TempDir Path temp;

  /** Two buffers of 32 MiB (their arenas are allocated whole at open: 64 MiB of the child's 96). */
  static BufferHashBuilder table(Path dir) {
    return BufferHash.builder(dir).logBytes(1L << 30).memoryBytes(80L << 20).entryBytes(4000).superTables(2).bufferBytes(32 << 20);
  }

  static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The writes of {@code seed}: puts (90 %) of values of 2 to 6 KiB and deletes (10 %), of keys
   * drawn from {@link #KEYS}; about 26 MiB stay live. Made to {@code table}, or when it is null to
   * the map returned (a null value: deleted), which the child does not keep: it would take the heap.
   */
  static Map<ByteBuffer, byte[]> write(BufferHash table, long seed) {
    Random random = new Random(seed);
    Map<ByteBuffer, byte[]> reference = table == null ? new HashMap<>() : null;
    for (int n = 0; n < WRITES; n++) {
      byte[] key = key(random.nextInt(KEYS));
      if (random.nextInt(10) == 0) {
        if (table == null) {
          reference.put(ByteBuffer.wrap(key), null);
        } else {
          table.delete(key);
        }
      } else {
        byte[] value = new byte[(2 << 10) + random.nextInt(4 << 10)];
        random.nextBytes(value);
        if (table == null) {
          reference.put(ByteBuffer.wrap(key), value);
        } else {
          table.put(key, value);
        }
      }
    }
    return reference;
  }

  @Test
  void buffersLargeRelativeToTheHeapAreWrittenOnClose() throws Exception {
    System.out.println("BufferHashSmallHeapCloseTest seed " + SEED);
    Path dir = temp.resolve("table");
    ChildJvm.Result closed = ChildJvm.run(HEAP, WriteAndClose.class, dir.toString(), String.valueOf(SEED));
    assertEquals(0, closed.exitCode(), closed.output());
    assertEquals("closed 0 flushes", closed.output().strip().lines().reduce((a, b) -> b).orElse(""), closed.output());
    long buffersBytes = Files.size(dir.resolve("buffers"));
    assertTrue(buffersBytes > (24L << 20), "buffers file of " + buffersBytes + " bytes");

    Map<ByteBuffer, byte[]> reference = write(null, SEED);
    try (BufferHash table = table(dir).open()) {
      for (int i = 0; i < KEYS; i++) {
        byte[] expected = reference.get(ByteBuffer.wrap(key(i)));
        byte[] actual = table.get(key(i));
        if (expected == null) {
          assertNull(actual, "key " + i);
        } else {
          assertArrayEquals(expected, actual, "key " + i);
        }
      }
      Map<ByteBuffer, byte[]> current = new HashMap<>();
      table.forEach((key, value) -> current.put(ByteBuffer.wrap(key), value));
      reference.values().removeIf(v -> v == null);
      assertEquals(reference.keySet(), current.keySet());
      reference.forEach((key, value) -> assertArrayEquals(value, current.get(key)));
    }
  }

  /** Opens the table of {@code args[0]}, makes the writes of seed {@code args[1]}, closes it, and prints "closed" and its flushes. */
  public static final class WriteAndClose {
    public static void main(String[] args) {
      try {
        BufferHash table = table(Path.of(args[0])).open();
        write(table, Long.parseLong(args[1]));
        long flushes = table.stats().flushes();
        table.close();
        System.out.println("closed " + flushes + " flushes");
      } catch (Throwable e) {
        e.printStackTrace();
        System.exit(3);
      }
    }
  }
}
