package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.ChildJvm;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An incarnation whose one entry takes more than half the heap (a table written by a JVM with a
 * larger heap): open takes it (it reads it once, a window of it at a time where it can), but
 * {@link BufferHash#forEach} and an eviction that hands its entries to the listener read it whole
 * and copy its value out, twice its bytes, and a 64 MiB heap died with {@link OutOfMemoryError}
 * there. Both now refuse it with an {@link UncheckedIOException} caused by {@link
 * HeapTooSmallException} naming the log and the incarnation's page, before allocating.
 */
class BufferHashLargeIncarnationSmallHeapTest {
  private static final String HEAP = "64m";
  /** Opened under a 64 MiB heap; read whole and copied, 80 MiB. */
  private static final int LARGE_VALUE_BYTES = 40 << 20;
  private static final int SMALL_VALUE_BYTES = 16 << 10;

  @TempDir Path temp;

  /** A log small enough that the child's writes evict the large incarnation soon (an entry takes at most a quarter of it). */
  static BufferHashBuilder table(Path dir) {
    return BufferHash.builder(dir).logBytes(176L << 20).memoryBytes(8 << 20).entryBytes(SMALL_VALUE_BYTES + 16);
  }

  static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  /** A table whose log holds one incarnation: the large entry alone, at page 0. */
  private Path tableWithALargeIncarnation() throws Exception {
    Path dir = temp.resolve("large-incarnation");
    try (BufferHash table = table(dir).open()) {
      table.put("large".getBytes(StandardCharsets.UTF_8), new byte[LARGE_VALUE_BYTES]);
      table.sync();
    }
    return dir;
  }

  private static String lastLine(ChildJvm.Result result) {
    return result.output().strip().lines().reduce((a, b) -> b).orElse("");
  }

  @Test
  void forEachRefusesAnIncarnationTheHeapCannotTakeIn() throws Exception {
    Path dir = tableWithALargeIncarnation();
    ChildJvm.Result result = ChildJvm.run(HEAP, ForEach.class, dir.toString());
    assertEquals(0, result.exitCode(), result.output());
    assertTrue(lastLine(result).startsWith("refused: " + dir.resolve("log") + ": the incarnation at page 0 (")
        && lastLine(result).contains("bytes of heap"), result.output());
  }

  @Test
  void anEvictionForTheListenerRefusesAnIncarnationTheHeapCannotTakeIn() throws Exception {
    Path dir = tableWithALargeIncarnation();
    ChildJvm.Result result = ChildJvm.run(HEAP, EvictWithListener.class, dir.toString());
    assertEquals(0, result.exitCode(), result.output());
    assertTrue(lastLine(result).startsWith("refused: " + dir.resolve("log") + ": the incarnation at page 0 (")
        && lastLine(result).contains("bytes of heap"), result.output());
    // The refusal came before the eviction changed anything: under a larger heap each write is
    // still there, or handed to the listener (reopening evicts: the child left the log full).
    String[] counted = result.output().strip().lines().filter(line -> line.startsWith("written ")).findFirst().orElseThrow().split(" ");
    int written = Integer.parseInt(counted[1]);
    assertTrue(written > 0 && counted[3].equals("0"), result.output());
    Map<String, Integer> evicted = new HashMap<>();
    try (BufferHash table = table(dir).evictionListener((key, value) -> evicted.put(new String(key, StandardCharsets.UTF_8), value.length)).open()) {
      assertEquals(LARGE_VALUE_BYTES, lengthOf(table, "large".getBytes(StandardCharsets.UTF_8), evicted));
      for (int i = 0; i < written; i++) {
        assertEquals(SMALL_VALUE_BYTES, lengthOf(table, key(i), evicted), "key " + i);
      }
    }
  }

  /** The length of {@code key}'s value in {@code table}, or as the listener saw it evicted. */
  private static int lengthOf(BufferHash table, byte[] key, Map<String, Integer> evicted) {
    byte[] value = table.get(key);
    Integer length = value != null ? Integer.valueOf(value.length) : evicted.get(new String(key, StandardCharsets.UTF_8));
    return length == null ? -1 : length;
  }

  /** Opens the table of {@code args[0]} and calls forEach: prints the refusal's message. */
  public static final class ForEach {
    public static void main(String[] args) {
      try (BufferHash table = table(Path.of(args[0])).open()) {
        table.forEach((key, value) -> {});
        System.out.println("read");
      } catch (UncheckedIOException e) {
        if (!(e.getCause() instanceof HeapTooSmallException)) {
          e.printStackTrace();
          System.exit(2);
        }
        System.out.println("refused: " + e.getCause().getMessage());
      } catch (Throwable e) {
        e.printStackTrace();
        System.exit(3);
      }
    }
  }

  /**
   * Opens the table of {@code args[0]} with an eviction listener and writes small entries until the
   * log evicts its oldest incarnation, the large one: prints the puts that returned, then the
   * refusal's message, and closes it.
   */
  public static final class EvictWithListener {
    public static void main(String[] args) {
      long[] evicted = new long[1];
      try (BufferHash table = table(Path.of(args[0])).evictionListener((key, value) -> evicted[0]++).open()) {
        int written = 0;
        try {
          for (; written < 20_000; written++) {
            table.put(key(written), new byte[SMALL_VALUE_BYTES]);
          }
          System.out.println("no refusal, " + evicted[0] + " entries evicted");
        } catch (UncheckedIOException e) {
          System.out.println("written " + written + " evicted " + evicted[0]);
          if (!(e.getCause() instanceof HeapTooSmallException)) {
            e.printStackTrace();
            System.exit(2);
          }
          System.out.println("refused: " + e.getCause().getMessage());
        }
      } catch (Throwable e) {
        e.printStackTrace();
        System.exit(3);
      }
    }
  }
}
