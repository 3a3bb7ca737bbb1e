package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.varve.core.testing.ChildJvm;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An incarnation header whose own checksum is right but that claims about 2 GiB of pages, where
 * the open rolls forward past the state's head: the open allocated the whole incarnation before
 * checking a unit of it, and a heap of 64 MiB ran out. Now its units are checked a chunk at a time
 * first ({@link LargeIncarnations}), the lie is taken for a torn write, and the table opens.
 */
class BufferHashLyingHeaderTest {
  private static final byte[] KEY = "key".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;

  static BufferHashBuilder table(Path dir) {
    return BufferHash.builder(dir).logBytes((IncarnationCodec.MAX_PAGES + 1024L) * LogFormat.PAGE_BYTES).memoryBytes(8 << 20).entryBytes(4000);
  }

  @Test
  void aHeaderClaimingTwoGigabytesPastTheHeadDoesNotExhaustTheHeap() throws Exception {
    Path tableDir = dir.resolve("t");
    try (BufferHash table = table(tableDir).open()) {
      table.put(KEY, KEY);
      table.sync();
    }
    try (FileChannel log = FileChannel.open(tableDir.resolve("log"), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      byte[] first = new byte[LogFormat.HEADER_BYTES];
      log.read(ByteBuffer.wrap(first), 0);
      IncarnationCodec.Header written = IncarnationCodec.readHeader(first, TableIds.of(tableDir), "page 0");
      byte[] lie = new byte[LogFormat.HEADER_BYTES];
      IncarnationCodec.writeHeader(lie, written.tableId, written.superTable, written.sequence + 1, IncarnationCodec.MAX_PAGES, 1);
      log.write(ByteBuffer.wrap(lie), (long) written.pages * LogFormat.PAGE_BYTES);
    }
    ChildJvm.Result opened = ChildJvm.run("64m", OpenAndGet.class, tableDir.toString());
    assertEquals(0, opened.exitCode(), opened.output());
    assertEquals("key=key", opened.output().strip().lines().reduce((a, b) -> b).orElse(""), opened.output());
  }

  @Test
  void anIncarnationLargerThanTheEagerReadIsCheckedAndReadBack() throws Exception {
    Path tableDir = dir.resolve("large");
    BufferHashBuilder builder = BufferHash.builder(tableDir).logBytes(128 << 20).memoryBytes(8 << 20).entryBytes(40);
    byte[] large = new byte[(LargeIncarnations.EAGER_PAGES + 300) * LogFormat.PAGE_BYTES];
    new java.util.SplittableRandom(7).nextBytes(large);
    try (BufferHash table = builder.open()) {
      table.put(KEY, large);
      table.sync(); // an incarnation of one entry, written at once
    }
    try (BufferHash table = builder.open()) { // scanned: its units are checked a chunk at a time
      org.junit.jupiter.api.Assertions.assertArrayEquals(large, table.get(KEY));
    }
  }

  /** Opens the table and prints {@code key=VALUE}. */
  public static final class OpenAndGet {
    public static void main(String[] args) throws Exception {
      try (BufferHash table = table(Path.of(args[0])).open()) {
        byte[] value = table.get(KEY);
        System.out.println("key=" + (value == null ? "null" : new String(value, StandardCharsets.UTF_8)));
      } catch (Throwable e) {
        e.printStackTrace();
        System.exit(3);
      }
    }
  }
}
