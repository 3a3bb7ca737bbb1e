package io.varve.examples.dedup;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FastCdcTest {
  private static final FastCdc CDC = FastCdc.defaults();

  static byte[] random(int length, long seed) {
    byte[] data = new byte[length];
    new SplittableRandom(seed).nextBytes(data);
    return data;
  }

  /** The chunks of {@code in}, as copies. */
  static List<byte[]> chunks(FastCdc cdc, InputStream in) throws IOException {
    List<byte[]> chunks = new ArrayList<>();
    long[] expectedPosition = {0};
    long total = cdc.chunk(in, (buffer, offset, length, position) -> {
      assertEquals(expectedPosition[0], position, "chunks follow each other");
      expectedPosition[0] += length;
      byte[] chunk = new byte[length];
      System.arraycopy(buffer, offset, chunk, 0, length);
      chunks.add(chunk);
    });
    assertEquals(expectedPosition[0], total);
    return chunks;
  }

  static List<byte[]> chunks(FastCdc cdc, byte[] data) throws IOException {
    return chunks(cdc, new ByteArrayInputStream(data));
  }

  private static Set<ByteBuffer> contents(List<byte[]> chunks) {
    Set<ByteBuffer> set = new HashSet<>();
    for (byte[] chunk : chunks) {
      set.add(ByteBuffer.wrap(chunk));
    }
    return set;
  }

  @Test
  void chunksCoverTheInputExactlyAndRespectTheSizes() throws IOException {
    for (FastCdc cdc : List.of(CDC, new FastCdc(512, 1024, 4096), new FastCdc(64, 4096, 1 << 20), new FastCdc(1, 256, 256))) {
      byte[] data = random(8 << 20, 1);
      List<byte[]> chunks = chunks(cdc, data);
      ByteArrayOutputStream joined = new ByteArrayOutputStream();
      for (int i = 0; i < chunks.size(); i++) {
        int length = chunks.get(i).length;
        assertTrue(length <= cdc.maxSize(), "chunk " + i + " has " + length + " bytes");
        assertTrue(length >= cdc.minSize() || i == chunks.size() - 1, "chunk " + i + " has " + length + " bytes");
        joined.write(chunks.get(i));
      }
      assertArrayEquals(data, joined.toByteArray());
      double average = data.length / (double) chunks.size();
      // Normalized chunking keeps the mean near the average asked for (it is a bit above it, as
      // no chunk is shorter than the minimum).
      assertTrue(average > cdc.avgSize() * 0.75 && average < cdc.avgSize() * 1.5, "average " + average + " for " + cdc.avgSize());
    }
  }

  @Test
  void defaultAverageIsNearEightKiB() throws IOException {
    List<byte[]> chunks = chunks(CDC, random(32 << 20, 2));
    double average = (32 << 20) / (double) chunks.size();
    assertTrue(average > 7 << 10 && average < 11 << 10, "average " + average);
  }

  @Test
  void equalSizesCutFixedChunks() throws IOException {
    List<byte[]> chunks = chunks(new FastCdc(4096, 4096, 4096), random(10_000, 3));
    assertEquals(List.of(4096, 4096, 1808), chunks.stream().map(c -> c.length).toList());
  }

  @Test
  void boundariesDependOnContentNotOffset() throws IOException {
    byte[] data = random(4 << 20, 4);
    Set<ByteBuffer> original = contents(chunks(CDC, data));
    for (int inserted : new int[] {1, 100, 5000, 20_000}) {
      for (long seed = 0; seed < 5; seed++) {
        byte[] shifted = new byte[data.length + inserted];
        System.arraycopy(random(inserted, 100 + seed), 0, shifted, 0, inserted);
        System.arraycopy(data, 0, shifted, inserted, data.length);
        List<byte[]> after = chunks(CDC, shifted);
        long kept = after.stream().filter(c -> original.contains(ByteBuffer.wrap(c))).count();
        // Only the first chunks change: the inserted bytes' own chunks, then one or two until a cut
        // falls where the original's did (normalized chunking judges a cut by its distance from
        // the chunk's start, so resynchronizing may take a chunk more than with one mask).
        String what = inserted + " bytes in front (seed " + seed + "): ";
        int firstKept = inserted / CDC.minSize() + 3;
        for (int i = firstKept; i < after.size(); i++) {
          assertTrue(original.contains(ByteBuffer.wrap(after.get(i))), what + "chunk " + i + " changed");
        }
        assertTrue(kept >= original.size() - 3, what + kept + " of " + original.size() + " chunks kept");
      }
    }
  }

  @Test
  void anEditInTheMiddleChangesOnlyNearbyChunks() throws IOException {
    byte[] data = random(4 << 20, 6);
    Set<ByteBuffer> original = contents(chunks(CDC, data));
    byte[] edited = data.clone();
    edited[2 << 20] ^= 1;
    List<byte[]> after = chunks(CDC, edited);
    long changed = after.stream().filter(c -> !original.contains(ByteBuffer.wrap(c))).count();
    assertTrue(changed >= 1 && changed <= 3, changed + " chunks changed");
  }

  @Test
  void deterministicWhateverTheReadSizes() throws IOException {
    byte[] data = random(3 << 20, 7);
    List<byte[]> once = chunks(CDC, data);
    List<byte[]> twice = chunks(CDC, data);
    // A stream that hands out 1 to 1000 bytes per read, as sockets and pipes do.
    SplittableRandom sizes = new SplittableRandom(8);
    InputStream trickle = new ByteArrayInputStream(data) {
      @Override
      public synchronized int read(byte[] b, int off, int len) {
        return super.read(b, off, Math.min(len, 1 + sizes.nextInt(1000)));
      }
    };
    List<byte[]> trickled = chunks(CDC, trickle);
    assertEquals(once.size(), twice.size());
    assertEquals(once.size(), trickled.size());
    for (int i = 0; i < once.size(); i++) {
      assertArrayEquals(once.get(i), twice.get(i));
      assertArrayEquals(once.get(i), trickled.get(i));
    }
  }

  @Test
  void emptyAndOneByteInputs() throws IOException {
    assertEquals(List.of(), chunks(CDC, new byte[0]));
    List<byte[]> one = chunks(CDC, new byte[] {42});
    assertEquals(1, one.size());
    assertArrayEquals(new byte[] {42}, one.get(0));
    // Shorter than the minimum: one chunk, the whole input.
    assertEquals(1, chunks(CDC, random(2000, 9)).size());
  }

  /**
   * A stream longer than 2^31 bytes, generated as it is read (never held whole): positions pass
   * the range of an {@code int}, and the chunks still cover it exactly (their SHA-1 over the
   * generator's).
   */
  @Test
  void streamsLongerThanAnyBuffer() throws Exception {
    long length = (1L << 31) + 12_345;
    byte[] block = random(1 << 20, 10);
    MessageDigest expected = MessageDigest.getInstance("SHA-1");
    MessageDigest chunked = MessageDigest.getInstance("SHA-1");
    long[] state = {0, 0, 0}; // next position, chunks, largest chunk
    long total = CDC.chunk(new GeneratedStream(block, length, expected), (buffer, offset, chunkLength, position) -> {
      assertEquals(state[0], position);
      state[0] += chunkLength;
      state[1]++;
      state[2] = Math.max(state[2], chunkLength);
      chunked.update(buffer, offset, chunkLength);
    });
    assertEquals(length, total);
    assertEquals(length, state[0]);
    assertTrue(state[2] <= CDC.maxSize());
    assertArrayEquals(expected.digest(), chunked.digest());
  }

  @Test
  void rejectsSizesThatMakeNoSense() {
    assertThrows(IllegalArgumentException.class, () -> new FastCdc(2048, 6000, 65536)); // not a power of two
    assertThrows(IllegalArgumentException.class, () -> new FastCdc(2048, 128, 65536)); // average too small
    assertThrows(IllegalArgumentException.class, () -> new FastCdc(0, 8192, 65536));
    assertThrows(IllegalArgumentException.class, () -> new FastCdc(16384, 8192, 65536));
    assertThrows(IllegalArgumentException.class, () -> new FastCdc(2048, 8192, 4096));
    assertThrows(IllegalArgumentException.class, () -> CDC.chunk(new ByteArrayInputStream(new byte[1]), new byte[100], (b, o, l, p) -> {}));
  }

  @Test
  void masksHaveTheirBitsSpreadOverThePapersPositions() {
    for (int ones = 6; ones <= 30; ones++) {
      long mask = FastCdc.spreadMask(ones);
      assertEquals(ones, Long.bitCount(mask));
      assertEquals(49, 63 - Long.numberOfLeadingZeros(mask));
      assertTrue(Long.numberOfTrailingZeros(mask) >= 16);
    }
  }

  /** {@code length} bytes: {@code block} over and over, each copy with its number in its first 8 bytes. */
  private static final class GeneratedStream extends InputStream {
    private final byte[] block;
    private final long length;
    private final MessageDigest digest;
    private long position;

    GeneratedStream(byte[] block, long length, MessageDigest digest) {
      this.block = block;
      this.length = length;
      this.digest = digest;
    }

    @Override
    public int read() {
      throw new UnsupportedOperationException();
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (position == length) {
        return -1;
      }
      int inBlock = (int) (position % block.length);
      int n = (int) Math.min(Math.min(len, block.length - inBlock), length - position);
      System.arraycopy(block, inBlock, b, off, n);
      // The copy number makes every copy's first chunk differ, so not every chunk repeats.
      long copy = position / block.length;
      for (int i = inBlock; i < 8 && i < inBlock + n; i++) {
        b[off + i - inBlock] = (byte) (copy >>> (8 * i));
      }
      digest.update(b, off, n);
      position += n;
      return n;
    }
  }
}
