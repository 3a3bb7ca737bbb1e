package io.varve.core.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.core.blocked.BlockedIndex;
import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.ect.EctIndex;
import io.varve.core.ect.EctParameters;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import io.varve.core.testing.TestRecords;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Both index files refuse each envelope defect with a message naming the format and the values. */
class IndexEnvelopeTest {
  interface Reader {
    RankIndex read(byte[] bytes) throws IOException;
  }

  static Stream<Arguments> kinds() {
    return Stream.of(
        Arguments.of(new EctParameters(64, 32), "ECT index", "an ECT index", 0x56454354, "versions 1 to 2",
            (Reader) bytes -> EctIndex.readFrom(new ByteArrayInputStream(bytes))),
        Arguments.of(BlockedIndexParameters.DEFAULT, "blocked index", "a blocked index", 0x56424C4B, "version 2 only",
            (Reader) bytes -> BlockedIndex.readFrom(new ByteArrayInputStream(bytes))));
  }

  private static byte[] serialized(IndexParameters parameters) throws IOException {
    long seed = 0x1DE4L;
    SplittableRandom random = TestRecords.seeded("IndexEnvelopeTest " + parameters.kind(), seed);
    int n = 2_000;
    long step = Long.divideUnsigned(-1L, n);
    RankIndexBuilder builder = parameters.builder(n);
    for (int i = 0; i < n; i++) {
      builder.add(i * step + (random.nextLong() & 0xFFFF), random.nextLong());
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    builder.finish().writeTo(out);
    return out.toByteArray();
  }

  private static String refusal(Reader reader, byte[] bytes) {
    return assertThrows(CorruptStoreException.class, () -> reader.read(bytes)).getMessage();
  }

  @ParameterizedTest
  @MethodSource("kinds")
  void everyEnvelopeDefectIsNamed(IndexParameters parameters, String format, String withArticle, int magic,
      String versions, Reader reader) throws IOException {
    byte[] bytes = serialized(parameters);
    assertEquals(parameters, reader.read(bytes).parameters());

    byte[] foreign = bytes.clone();
    ByteBuffer.wrap(foreign).putInt(0, 0x12345678);
    assertEquals("not " + withArticle + " file: magic 0x12345678, expected 0x" + Integer.toHexString(magic),
        refusal(reader, foreign));

    for (int version : new int[] {0, 3}) {
      byte[] other = bytes.clone();
      ByteBuffer.wrap(other).putInt(4, version);
      assertEquals(format + " format version " + version + " is not supported (this code reads " + versions + ")",
          refusal(reader, other));
    }

    assertEquals(format + " footer truncated: 2 bytes of 4", refusal(reader, Arrays.copyOf(bytes, bytes.length - 2)));

    byte[] flipped = bytes.clone();
    flipped[bytes.length - 5] ^= 0x40; // the last payload byte: a trie or spill word, checked by the checksum only
    int stored = ByteBuffer.wrap(flipped).getInt(bytes.length - 4);
    int computed = Envelope.crc32c(flipped, 0, bytes.length - 4);
    assertEquals(format + " checksum mismatch: stored 0x" + Integer.toHexString(stored) + ", computed 0x"
        + Integer.toHexString(computed) + " (the file is damaged)", refusal(reader, flipped));
  }
}
