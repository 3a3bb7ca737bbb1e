package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the log places an incarnation at the end of the largest log ({@link
 * BufferHashTuning#MAX_LOG_BYTES}, a sparse file here): {@code head + pages} passes {@code
 * Integer.MAX_VALUE} there, and wrapped negative, so an incarnation that did not fit before the
 * end was placed at the head all the same, to be written past the log's end.
 */
class IncarnationLogPlacementTest {
  @TempDir Path dir;

  @Test
  void anIncarnationThatDoesNotFitBeforeTheEndOfTheLargestLogGoesToPageZero() throws IOException {
    int totalPages = Integer.MAX_VALUE;
    int head = totalPages - 10;
    try (FileChannel log = FileChannel.open(dir.resolve("log"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      log.write(ByteBuffer.allocate(1), (long) totalPages * LogFormat.PAGE_BYTES - 1); // sparse
    }
    byte[] state = new byte[2 * StateSlot.BYTES];
    byte[] slot = new StateSlot(LogFormat.STATE_VERSION, 1, totalPages, head, head, 5, 5, 0, 1, 7, 0x1D).encode();
    System.arraycopy(slot, 0, state, StateSlot.BYTES, StateSlot.BYTES); // generation 1 lives in slot 1
    Files.write(dir.resolve("state"), state);
    try (IncarnationLog log = IncarnationLog.open(dir)) {
      log.scan((bytes, header, page) -> {
        throw new AssertionError("the log holds no incarnation");
      });
      assertEquals(head, log.placeFor(10), "fits exactly before the end");
      assertEquals(0, log.placeFor(11), "one page too many");
      assertEquals(0, log.placeFor(32));
    }
  }
}
