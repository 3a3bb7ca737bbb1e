package io.varve.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes past the page cache: the file holds exactly the bytes appended after its head, at every
 * flush and at the end, whatever the sizes of the pieces; an offset off the device's blocks is
 * refused, and so is use after close.
 */
class UncachedFileOutputTest {
  private static final long SEED = 0x0D12EC7L;

  @TempDir Path temp;

  /**
   * Every buffer holds exactly {@link UncachedFileOutput#BUFFER_BYTES}, also one whose memory
   * starts on a block boundary: its aligned slice alone kept an extra block, so a full buffer ran
   * a block past where the next one was written, which overwrote it, and the file ended short.
   */
  @Test
  void aBufferWhoseMemoryStartsOnABoundaryHoldsExactlyOneBuffer() {
    int alignment = 4096;
    int bytes = UncachedFileOutput.BUFFER_BYTES;
    ByteBuffer memory = ByteBuffer.allocateDirect(bytes + 3 * alignment).alignedSlice(alignment);
    for (int start : new int[] {0, 16, alignment - 1}) {
      ByteBuffer raw = memory.slice(start, bytes + alignment); // what allocateDirect(bytes + alignment) may return
      ByteBuffer buffer = UncachedFileOutput.exactlyOneBuffer(raw, alignment);
      assertEquals(bytes, buffer.capacity(), "memory starting " + start + " bytes past a boundary");
      assertEquals(0, buffer.alignmentOffset(0, alignment), "aligned, starting " + start + " past a boundary");
      assertEquals(bytes, buffer.clear().remaining(), "a cleared buffer takes one buffer's bytes");
    }
  }

  @Test
  void holdsTheHeadAndEveryByteAppendedAtEachFlush() throws IOException {
    SplittableRandom random = new SplittableRandom(SEED);
    System.out.println("UncachedFileOutputTest seed=" + SEED);
    Path path = temp.resolve("file");
    byte[] head = new byte[8192];
    random.nextBytes(head);
    Files.write(path, head);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    expected.write(head);
    UncachedFileOutput out = UncachedFileOutput.openOrNull(path, head.length);
    assumeTrue(out != null, "this file system takes no writes past the page cache");
    try (out) {
      for (int step = 0; step < 60; step++) {
        if (random.nextInt(6) == 0) {
          out.flush();
          assertArrayEquals(expected.toByteArray(), Files.readAllBytes(path), "after a flush at step " + step);
        } else {
          // Pieces from one byte to several of the output's buffers.
          byte[] piece = new byte[random.nextBoolean() ? random.nextInt(1, 5000) : random.nextInt(1, 3 << 20)];
          random.nextBytes(piece);
          int from = random.nextInt(3);
          ByteBuffer bytes = random.nextBoolean() ? ByteBuffer.wrap(piece) : ByteBuffer.allocateDirect(piece.length).put(piece).flip();
          bytes.position(from);
          out.write(bytes);
          assertEquals(bytes.limit(), bytes.position(), "every byte taken");
          expected.write(piece, from, piece.length - from);
        }
      }
      out.flush();
    }
    assertArrayEquals(expected.toByteArray(), Files.readAllBytes(path));
    assertThrows(IllegalStateException.class, () -> out.write(ByteBuffer.allocate(1)));
  }

  @Test
  void refusesAnOffsetOffTheDevicesBlocks() throws IOException {
    Path path = temp.resolve("file");
    Files.write(path, new byte[100]);
    assertNull(UncachedFileOutput.openOrNull(path, 100));
    assertEquals(100, Files.size(path), "nothing written");
  }
}
