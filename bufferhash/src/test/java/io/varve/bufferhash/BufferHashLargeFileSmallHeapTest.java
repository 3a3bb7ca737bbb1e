package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write-ahead segment or a buffers file larger than the heap of the JVM that opens the table
 * (written by one with a larger heap, or larger buffers): the open read each whole into one array
 * and a heap of 64 MiB died with {@link OutOfMemoryError}. They are now read a window at a time,
 * and the open keeps every record: the child JVM finds the last key written and one written early.
 * A single entry the heap cannot take in is refused with {@link HeapTooSmallException}, before it
 * is allocated.
 */
class BufferHashLargeFileSmallHeapTest {
  private static final int VALUE_BYTES = 16 << 10;
  /** 80 MiB of values: more than the child's heap. */
  private static final int KEYS = 5120;
  private static final String HEAP = "64m";

  @TempDir Path temp;

  static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] value(int i) {
    byte[] value = new byte[VALUE_BYTES];
    Arrays.fill(value, (byte) i);
    value[0] = (byte) (i >>> 8);
    return value;
  }

  /** The child's table: small buffers, a log large enough to keep every key. */
  static BufferHashBuilder small(Path dir, Durability durability) {
    return BufferHash.builder(dir).logBytes(256L << 20).memoryBytes(8 << 20).entryBytes(VALUE_BYTES).durability(durability)
        .walSegmentBytes(1L << 30);
  }

  @Test
  void aWriteAheadSegmentLargerThanTheHeapIsReplayed() throws Exception {
    Path dir = temp.resolve("live");
    Path killed = temp.resolve("killed");
    try (BufferHash table = small(dir, Durability.SYNC_ON_CALL).open()) {
      for (int i = 0; i < KEYS; i++) {
        table.put(key(i), value(i));
      }
      table.sync();
      CrashFiles.copyAsKilled(dir, killed);
    }
    List<Path> segments;
    try (Stream<Path> files = Files.list(killed)) {
      segments = files.filter(p -> p.getFileName().toString().startsWith("wal-")).toList();
    }
    assertEquals(1, segments.size(), segments.toString());
    assertTrue(Files.size(segments.get(0)) > (long) KEYS * VALUE_BYTES, "segment of " + Files.size(segments.get(0)) + " bytes");
    assertOpensAndHolds(killed, "SYNC_ON_CALL");
  }

  @Test
  void aBuffersFileLargerThanTheHeapIsLoaded() throws Exception {
    Path dir = temp.resolve("closed");
    BufferHashBuilder large = BufferHash.builder(dir).logBytes(1L << 30).memoryBytes(256L << 20).entryBytes(VALUE_BYTES)
        .superTables(2).bufferBytes(100 << 20);
    try (BufferHash table = large.open()) {
      for (int i = 0; i < KEYS; i++) {
        table.put(key(i), value(i));
      }
    }
    assertTrue(Files.size(dir.resolve("buffers")) > (long) KEYS * VALUE_BYTES, "buffers file of " + Files.size(dir.resolve("buffers")) + " bytes");
    assertOpensAndHolds(dir, "BUFFERS_IN_RAM");
  }

  /**
   * One write-ahead record larger than half the heap: replaying it takes the record and a copy of
   * its value. The replay refuses it with {@link HeapTooSmallException} naming the segment before
   * allocating; the pass that only checks the records (the first of an open) reads it a window at
   * a time and takes it.
   */
  @Test
  void aRecordTheHeapCannotTakeInIsRefusedNamingItsSegment() throws Exception {
    Path segment = temp.resolve(WriteAheadLog.segmentName(1));
    long tableId = 42;
    byte[] header = new byte[WriteAheadLog.SEGMENT_HEADER_BYTES];
    WriteAheadLog.SEGMENT.putHeader(header, 0, LogFormat.structureVersion(tableId));
    LogFormat.putLong(header, 8, 1);
    LogFormat.putLong(header, 16, 1);
    LogFormat.seal(tableId, header, 0, 24);
    byte[] value = new byte[40 << 20];
    int entry = LogFormat.entryBytes(1, value.length, false);
    byte[] record = new byte[WriteAheadLog.RECORD_HEADER_BYTES + WriteAheadLog.BODY_HEADER_BYTES + entry];
    int body = WriteAheadLog.RECORD_HEADER_BYTES;
    LogFormat.putInt(record, 0, record.length - body);
    LogFormat.putLong(record, body, 1);
    record[body + 8] = WriteAheadLog.KIND_ENTRY;
    LogFormat.putEntry(record, body + WriteAheadLog.BODY_HEADER_BYTES, new byte[] {'k'}, value, false);
    LogFormat.putInt(record, 4, LogFormat.check(tableId, record, body, record.length));
    try (java.io.OutputStream out = Files.newOutputStream(segment)) {
      out.write(header);
      out.write(record);
    }
    ChildJvm.Result replayed = ChildJvm.run(HEAP, Replay.class, segment.toString(), String.valueOf(tableId));
    assertEquals(0, replayed.exitCode(), replayed.output());
    String last = replayed.output().strip().lines().reduce((x, y) -> y).orElse("");
    assertTrue(last.startsWith("refused: " + segment + ": write-ahead record 1 (") && last.contains("bytes of heap"), replayed.output());
  }

  /**
   * An incarnation of one entry larger than the heap: the open reads it whole to hash its key, and
   * a heap of 64 MiB died with {@link OutOfMemoryError}; it is refused with {@link
   * HeapTooSmallException} naming the log before the allocation.
   */
  @Test
  void anIncarnationLargerThanTheHeapIsRefusedNamingTheLog() throws Exception {
    Path dir = temp.resolve("large-entry");
    try (BufferHash table = largeEntryTable(dir).open()) {
      table.put(key(0), new byte[80 << 20]);
      table.sync(); // an incarnation of its own
    }
    ChildJvm.Result opened = ChildJvm.run(HEAP, OpenLargeEntryTable.class, dir.toString());
    assertEquals(0, opened.exitCode(), opened.output());
    String last = opened.output().strip().lines().reduce((x, y) -> y).orElse("");
    assertTrue(last.startsWith("refused: " + dir.resolve("log") + ": the incarnation at page ") && last.contains("bytes of heap"), opened.output());
  }

  static BufferHashBuilder largeEntryTable(Path dir) {
    return BufferHash.builder(dir).logBytes(512L << 20).memoryBytes(8 << 20).entryBytes(40);
  }

  /** Opens the table of {@code args[0]}, expecting {@link HeapTooSmallException}: prints its message. */
  public static final class OpenLargeEntryTable {
    public static void main(String[] args) throws Exception {
      try (BufferHash table = largeEntryTable(Path.of(args[0])).open()) {
        System.out.println("opened");
      } catch (HeapTooSmallException e) {
        System.out.println("refused: " + e.getMessage());
      } catch (Throwable e) {
        e.printStackTrace();
        System.exit(3);
      }
    }
  }

  /** Replays the segment {@code args[0]} of table id {@code args[1]}: checks it, then hands its entries over. */
  public static final class Replay {
    public static void main(String[] args) throws Exception {
      Path segment = Path.of(args[0]);
      long tableId = Long.parseLong(args[1]);
      WriteAheadLog.Replayer replayer = new WriteAheadLog.Replayer() {
        @Override
        public void flushed(int superTable, long through) {}

        @Override
        public void entry(long sequence, int superTable, byte[] key, byte[] value) {
          System.out.println("entry " + sequence + " of " + value.length + " bytes");
        }
      };
      try {
        SegmentReplay.replay(segment, true, false, 1, tableId, -1, replayer, false);
        System.out.println("checked");
        SegmentReplay.replay(segment, false, false, 1, tableId, -1, replayer, true);
      } catch (HeapTooSmallException e) {
        System.out.println("refused: " + e.getMessage());
      } catch (Throwable e) {
        e.printStackTrace();
        System.exit(3);
      }
    }
  }

  private static void assertOpensAndHolds(Path dir, String durability) throws Exception {
    ChildJvm.Result opened = ChildJvm.run(HEAP, OpenAndGet.class, dir.toString(), durability);
    assertEquals(0, opened.exitCode(), opened.output());
    assertEquals("holds", opened.output().strip().lines().reduce((a, b) -> b).orElse(""), opened.output());
  }

  /** Opens the table of {@code args[0]} with durability {@code args[1]} and prints "holds" if the first and last keys are there. */
  public static final class OpenAndGet {
    public static void main(String[] args) throws Exception {
      try (BufferHash table = small(Path.of(args[0]), Durability.valueOf(args[1])).open()) {
        for (int i : new int[] {0, KEYS / 2, KEYS - 1}) {
          if (!Arrays.equals(value(i), table.get(key(i)))) {
            System.out.println("key " + i + " lost");
            System.exit(2);
          }
        }
        System.out.println("holds");
      } catch (Throwable e) {
        e.printStackTrace();
        System.exit(3);
      }
    }
  }
}
