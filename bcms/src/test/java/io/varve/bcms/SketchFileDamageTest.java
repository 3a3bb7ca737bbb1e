package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.DelegatingChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every byte of a small sketch file flipped, and the file cut at every length, in both layouts and
 * both format versions: each open ({@code open}, {@code openAfterCrash}, and {@code openUnverified}
 * where the flip is outside the body, which it does not read) either refuses with a {@link
 * CorruptStoreException} or answers exactly as the undamaged file, never with another exception or
 * another estimate. A flip in the newest commit record of a version-2 file leaves the older one,
 * the open record of the file's creation: refused by {@code open}, taken by {@code openAfterCrash}
 * with that record's total weight and the same counts.
 */
class SketchFileDamageTest {
  @TempDir Path dir;

  private static final int ITEMS = 40;

  /**
   * Forces cost milliseconds each here and the recoveries make about 8,000 of them: what reaches the
   * device is not under test (a torn commit is {@link SketchTornCommitTest}'s), so they do nothing.
   */
  @BeforeEach
  void forcesDoNothing() {
    SketchFileHandle.opener = (file, options) -> new DelegatingChannel(FileChannel.open(file, options)) {
      @Override
      public void force(boolean metaData) {}
    };
  }

  @AfterEach
  void forcesForce() {
    SketchFileHandle.opener = FileChannel::open;
  }

  private static AnySketch open(Path file, boolean pages, String how) {
    return switch (how) {
      case "open" -> pages ? AnySketch.of(BufferedCountMinSketch.open(file, 1 << 16)) : AnySketch.of(CountMinSketch.open(file));
      case "openUnverified" -> pages ? AnySketch.of(BufferedCountMinSketch.openUnverified(file, 1 << 16))
          : AnySketch.of(CountMinSketch.openUnverified(file));
      case "openAfterCrash" -> pages ? AnySketch.of(BufferedCountMinSketch.openAfterCrash(file, 1 << 16))
          : AnySketch.of(CountMinSketch.openAfterCrash(file));
      default -> throw new IllegalArgumentException(how);
    };
  }

  /** The estimates of the items {@code 0..ITEMS} and of as many never updated, then the total weight. */
  private static long[] answers(AnySketch sketch) {
    long[] answers = new long[2 * ITEMS + 1];
    for (int i = 0; i < 2 * ITEMS; i++) {
      answers[i] = sketch.estimate((long) (i < ITEMS ? i : 1_000_000 + i));
    }
    answers[2 * ITEMS] = sketch.totalWeight();
    return answers;
  }

  @ParameterizedTest(name = "pages={0}, version {1}")
  @CsvSource({"false, 2", "true, 2", "false, 1", "true, 1"})
  void everyByteFlippedAndEveryCutIsRefusedOrAnswersAsBefore(boolean pages, int version) throws IOException {
    byte[] v2 = HostileSketchFiles.base(pages);
    byte[] file = version == SketchFile.VERSION ? v2 : SketchFiles.version1Of(v2);
    int header = SketchFiles.read(file).header().headerLength();
    Path path = dir.resolve("damaged.sketch");
    Files.write(path, file);
    long[] expected;
    try (AnySketch sketch = open(path, pages, "open")) {
      expected = answers(sketch);
    }
    for (int i = 0; i < ITEMS; i++) {
      long count = 0;
      for (int j = i; j < 300; j += ITEMS) {
        count += 1 + j % 3;
      }
      assertTrue(expected[i] >= count, "the undamaged file underestimates item " + i);
    }
    // the newest record's older neighbour, in version 2: the creation's open record, of total weight 0
    long olderWeight = version == SketchFile.VERSION ? SketchFiles.recordIn(file, 0).totalWeight() : -1;
    int[] outcomes = new int[3]; // refused, as before, as before with the older record's weight
    // Rewritten in place, never truncated and written again, which ext4 makes durable on close.
    try (FileChannel scratch = FileChannel.open(path, StandardOpenOption.WRITE)) {
      for (int at = 0; at < file.length; at++) {
        byte[] copy = file.clone();
        copy[at] ^= (byte) 0xFF;
        for (String how : at < header ? new String[] {"open", "openAfterCrash", "openUnverified"} : new String[] {"open", "openAfterCrash"}) {
          scratch.write(ByteBuffer.wrap(copy), 0);
          String context = "version " + version + (pages ? " pages" : " rows") + ", byte " + at + " flipped, " + how;
          int outcome = outcome(path, pages, how, expected, olderWeight, context);
          outcomes[outcome]++;
          assertTrue(outcome != 2 || how.equals("openAfterCrash"), context + ": opened with the older record");
        }
      }
      scratch.write(ByteBuffer.wrap(file), 0);
      for (int length = file.length - 1; length >= 0; length--) {
        scratch.truncate(length);
        for (String how : new String[] {"open", "openUnverified"}) {
          String context = "version " + version + (pages ? " pages" : " rows") + ", cut to " + length + ", " + how;
          assertThrows(CorruptStoreException.class, () -> open(path, pages, how).close(), context);
        }
      }
    }
    System.out.println("SketchFileDamageTest: version " + version + (pages ? " pages" : " rows") + ", " + file.length
        + " bytes: flipped, " + outcomes[0] + " opens refused, " + outcomes[1] + " answered as before, " + outcomes[2]
        + " as before with the older record's total weight; " + file.length + " cuts refused");
    assertTrue(outcomes[0] > 0 && (version == SketchFile.VERSION_1 || outcomes[1] > 0 && outcomes[2] > 0));
  }

  /** Opens {@code path}: 0 when refused, 1 when it answers as {@code expected}, 2 as expected but for the older record's total weight. */
  private static int outcome(Path path, boolean pages, String how, long[] expected, long olderWeight, String context) {
    long[] answers;
    try (AnySketch sketch = open(path, pages, how)) {
      answers = answers(sketch);
    } catch (CorruptStoreException e) {
      assertTrue(e.getMessage().contains(path.toString()), context + ": " + e.getMessage());
      return 0;
    }
    assertEquals(Arrays.toString(Arrays.copyOf(expected, 2 * ITEMS)), Arrays.toString(Arrays.copyOf(answers, 2 * ITEMS)), context);
    long weight = answers[2 * ITEMS];
    if (weight == expected[2 * ITEMS]) {
      return 1;
    }
    assertEquals(olderWeight, weight, context + ": total weight");
    return 2;
  }
}
