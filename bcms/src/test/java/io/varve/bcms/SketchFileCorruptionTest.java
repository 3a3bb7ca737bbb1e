package io.varve.bcms;

import static io.varve.bcms.SketchChecks.random;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Damaged, foreign and unfinished sketch files: every one must fail to open with {@link
 * CorruptStoreException} (no other type), naming the file, and leak no file handle.
 */
class SketchFileCorruptionTest {
  @TempDir Path dir;

  private int files;

  private Path newPath() {
    return dir.resolve("sketch-" + (files++) + ".cms");
  }

  /** The sketch kinds and page sizes whose files are damaged here. */
  enum Format {
    PLAIN(SketchParameters.ofDimensions(1000, 4).withSeed(5)),
    BUFFERED_512(SketchParameters.ofDimensions(1000, 4).withSeed(5).withPageSize(512).withCounterBits(32)),
    BUFFERED_8192(SketchParameters.ofDimensions(3000, 3).withSeed(5).withPageSize(8192)
        .withConservativeUpdate(true));

    final SketchParameters parameters;

    Format(SketchParameters parameters) {
      this.parameters = parameters;
    }

    boolean buffered() {
      return this != PLAIN;
    }

    SketchFile.Layout layout() {
      return buffered() ? SketchFile.Layout.PAGES : SketchFile.Layout.ROWS;
    }

    int headerLength() {
      return SketchFile.headerLength(SketchFile.VERSION, layout(), parameters);
    }

    /** Creates a sketch in {@code path}, applies {@code work}, and closes it. */
    void write(Path path, Consumer<AnySketch> work) {
      try (AnySketch s = create(path)) {
        work.accept(s);
      }
    }

    AnySketch create(Path path) {
      return buffered()
          ? AnySketch.of(BufferedCountMinSketch.create(path, parameters, SketchChecks.budgetForCapacity(parameters, 8)))
          : AnySketch.of(CountMinSketch.create(path, parameters));
    }

    AnySketch open(Path path, boolean verify) {
      if (buffered()) {
        return AnySketch.of(verify ? BufferedCountMinSketch.open(path, 1 << 16)
            : BufferedCountMinSketch.openUnverified(path, 1 << 16));
      }
      return AnySketch.of(verify ? CountMinSketch.open(path) : CountMinSketch.openUnverified(path));
    }
  }

  private static final long[] ITEMS = new long[500];

  static {
    Random r = new Random(99);
    for (int i = 0; i < ITEMS.length; i++) {
      ITEMS[i] = r.nextLong();
    }
  }

  /** A valid, closed sketch file of {@code format} with some counts. */
  private Path validFile(Format format) {
    return validFile(format, newPath());
  }

  /** A valid, closed sketch file of {@code format} in {@code path}, with some counts. */
  static Path validFile(Format format, Path path) {
    format.write(path, s -> {
      for (int i = 0; i < 5000; i++) {
        s.update(ITEMS[i % ITEMS.length], 1 + i % 7);
      }
    });
    return path;
  }

  /** Opening {@code path} fails with CorruptStoreException, naming the file, in both modes; returns the messages. */
  private static List<String> assertCorrupt(Format format, Path path) {
    List<String> messages = new ArrayList<>();
    for (boolean verify : new boolean[] {true, false}) {
      CorruptStoreException e = assertThrows(CorruptStoreException.class,
          () -> format.open(path, verify).close(), format + (verify ? " open" : " openUnverified"));
      assertTrue(e.getMessage().contains(path.toString()), "message names the file: " + e.getMessage());
      messages.add(e.getMessage());
    }
    return messages;
  }

  private static void assertContains(String expected, List<String> messages) {
    for (String m : messages) {
      assertTrue(m.contains(expected), "expected \"" + expected + "\" in: " + m);
    }
  }

  // ---------------------------------------------------------------- valid files first

  @ParameterizedTest
  @EnumSource(Format.class)
  void aValidFileOpensInBothModes(Format format) throws IOException {
    Path path = validFile(format);
    assertEquals(format.headerLength() + (format.buffered()
        ? SketchChecks.pageCount(format.parameters) * format.parameters.pageSize()
        : format.parameters.width() * format.parameters.depth() * format.parameters.counterBytes()),
        Files.size(path));
    for (boolean verify : new boolean[] {true, false}) {
      try (AnySketch s = format.open(path, verify)) {
        assertEquals(format.parameters, s.parameters());
        assertTrue(s.estimate(ITEMS[0]) >= 10);
      }
    }
  }

  // ---------------------------------------------------------------- truncation and extension

  @ParameterizedTest
  @EnumSource(Format.class)
  void truncatedFilesAreCorrupt(Format format) throws IOException {
    Path valid = validFile(format);
    byte[] bytes = Files.readAllBytes(valid);
    int header = format.headerLength();
    Random r = random(20_000 + format.ordinal());
    TreeSet<Integer> lengths = new TreeSet<>(List.of(0, 1, 10, 84, 87, 88, 100, header - 1, header, header + 1,
        header + format.parameters.pageSize(), bytes.length - 4096, bytes.length - 1));
    for (int i = 0; i < 10; i++) {
      lengths.add(r.nextInt(bytes.length));
    }
    Path damaged = newPath();
    for (int length : lengths) {
      Files.write(damaged, Arrays.copyOf(bytes, length));
      List<String> messages = assertCorrupt(format, damaged);
      if (length < 88) {
        assertContains("shorter than a sketch header", messages);
      } else {
        assertContains("truncated", messages);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Format.class)
  void extendedFilesAreCorrupt(Format format) throws IOException {
    byte[] bytes = Files.readAllBytes(validFile(format));
    Path damaged = newPath();
    for (int extra : new int[] {1, 4096, format.parameters.pageSize()}) {
      Files.write(damaged, Arrays.copyOf(bytes, bytes.length + extra));
      assertContains("too long", assertCorrupt(format, damaged));
    }
  }

  // ---------------------------------------------------------------- bit flips

  @ParameterizedTest
  @EnumSource(Format.class)
  void everyBitFlipInTheHeaderIsCorrupt(Format format) throws IOException {
    byte[] bytes = Files.readAllBytes(validFile(format));
    Path damaged = newPath();
    for (int at = 0; at < 88; at++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] copy = bytes.clone();
        copy[at] ^= (byte) (1 << bit);
        Files.write(damaged, copy);
        assertCorrupt(format, damaged);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Format.class)
  void bitFlipsInTheBodyFailTheChecksumButOpenUnverified(Format format) throws IOException {
    Path valid = validFile(format);
    byte[] bytes = Files.readAllBytes(valid);
    int header = format.headerLength();
    Random r = random(21_000 + format.ordinal());
    List<Integer> offsets = new ArrayList<>(List.of(header, header + 1, bytes.length - 1));
    for (int i = 0; i < 20; i++) {
      offsets.add(header + r.nextInt(bytes.length - header));
    }
    Path damaged = newPath();
    for (int at : offsets) {
      byte[] copy = bytes.clone();
      copy[at] ^= (byte) (1 << r.nextInt(8));
      Files.write(damaged, copy);
      CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> format.open(damaged, true).close(),
          "flip at " + at);
      assertTrue(e.getMessage().contains("body checksum mismatch"), e.getMessage());
      assertTrue(e.getMessage().contains(damaged.toString()), e.getMessage());
      try (AnySketch s = format.open(damaged, false)) {
        assertEquals(format.parameters, s.parameters());
        s.estimate(ITEMS[1]);
      }
      assertArrayEquals(copy, Files.readAllBytes(damaged), "an unverified open that only queried changed the file");
    }
  }

  // ---------------------------------------------------------------- foreign files

  private static ByteBuffer fields(byte[] bytes) {
    return SketchFiles.fields(bytes);
  }

  @ParameterizedTest
  @EnumSource(Format.class)
  void foreignFilesAreCorrupt(Format format) throws IOException {
    Random r = random(22_000 + format.ordinal());
    Path path = newPath();

    byte[] noise = new byte[8192];
    r.nextBytes(noise);
    Files.write(path, noise);
    assertContains("not a Varve count-min sketch", assertCorrupt(format, path));

    Files.writeString(path, "This is a text file, not a sketch.\n".repeat(300), UTF_8);
    assertContains("not a Varve count-min sketch", assertCorrupt(format, path));

    Files.write(path, new byte[0]);
    assertContains("shorter than a sketch header", assertCorrupt(format, path));

    Files.write(path, new byte[8192]);
    assertContains("not a Varve count-min sketch", assertCorrupt(format, path));

    byte[] magicOnly = Arrays.copyOf("VARVECMS".getBytes(UTF_8), 8192);
    r.nextBytes(noise);
    System.arraycopy(noise, 0, magicOnly, 12, 8192 - 12);
    fields(magicOnly).putInt(8, 1);
    Files.write(path, magicOnly);
    assertContains("count-min sketch checksum mismatch", assertCorrupt(format, path));

    Files.write(path, Arrays.copyOf("VARVECMS".getBytes(UTF_8), 50));
    assertContains("shorter than a sketch header", assertCorrupt(format, path));
  }

  // ---------------------------------------------------------------- writers that stopped

  /**
   * Two writers of one file would write back pages over each other's counts, and an estimate could
   * fall below the truth; before the first update the file still reads as closed cleanly, so only
   * the file's lock stops the second. A refused open leaves the first's lock and counts alone.
   */
  @ParameterizedTest
  @EnumSource(Format.class)
  void aSecondOpenerIsRefusedAlsoBeforeTheFirstUpdate(Format format) throws IOException {
    Path path = validFile(format);
    long expected;
    try (AnySketch first = format.open(path, true)) {
      for (boolean verify : new boolean[] {true, false}) {
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> format.open(path, verify), format.toString());
        assertTrue(refused.getMessage().contains(path.toString()), "message names the file: " + refused.getMessage());
      }
      first.update(ITEMS[0], 10);
      expected = first.estimate(ITEMS[0]);
      assertThrows(IllegalStateException.class, () -> format.open(path, true));
    }
    try (AnySketch reopened = format.open(path, true)) {
      assertEquals(expected, reopened.estimate(ITEMS[0]));
    }
    Path fresh = newPath();
    try (AnySketch created = format.create(fresh)) {
      assertThrows(IllegalStateException.class, () -> format.open(fresh, true), "a new file is its creator's");
      created.update(ITEMS[1], 1);
    }
    try (AnySketch reopened = format.open(fresh, true)) {
      assertTrue(reopened.estimate(ITEMS[1]) >= 1);
    }
  }

  @ParameterizedTest
  @EnumSource(Format.class)
  void aFileWhoseWriterStoppedIsNotClosedCleanly(Format format) throws IOException {
    Path copy = newPath();
    // a new sketch, updated, copied while open
    Path path = newPath();
    try (AnySketch s = format.create(path)) {
      s.update(ITEMS[0], 3);
      Files.copy(path, copy);
      assertContains("not closed cleanly", assertCorrupt(format, copy));
    }
    // a reopened clean sketch, updated once, copied while open
    try (AnySketch s = format.open(path, true)) {
      s.update(ITEMS[1], 1);
      Files.delete(copy);
      Files.copy(path, copy);
      assertContains("not closed cleanly", assertCorrupt(format, copy));
      // a second opener of the file being written is refused: the file is the first's alone
      for (boolean verify : new boolean[] {true, false}) {
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> format.open(path, verify));
        assertTrue(refused.getMessage().contains("in this process"), refused.getMessage());
      }
    }
    // after flush the file is complete: a copy opens, with the same answers
    try (AnySketch s = format.open(path, true)) {
      s.update(ITEMS[2], 4);
      s.flush();
      Files.delete(copy);
      Files.copy(path, copy);
      try (AnySketch c = format.open(copy, true)) {
        for (long item : ITEMS) {
          assertEquals(s.estimate(item), c.estimate(item));
        }
        assertEquals(s.totalWeight(), c.totalWeight());
        assertEquals(8, c.totalWeight());
      }
      // ... until the next update
      s.update(ITEMS[3], 1);
      Files.delete(copy);
      Files.copy(path, copy);
      assertContains("not closed cleanly", assertCorrupt(format, copy));
    }
    try (AnySketch s = format.open(path, true)) {
      assertEquals(9, s.totalWeight());
      assertEquals(4, s.estimate(ITEMS[2]));
    }
  }

  @ParameterizedTest
  @EnumSource(Format.class)
  void aSketchThatWasOnlyQueriedLeavesItsFileUnchanged(Format format) throws IOException {
    Path path = validFile(format);
    byte[] before = Files.readAllBytes(path);
    for (boolean verify : new boolean[] {true, false}) {
      try (AnySketch s = format.open(path, verify)) {
        for (long item : ITEMS) {
          s.estimate(item);
        }
        s.update(ITEMS[0], 0); // weight 0 changes nothing
        s.totalWeight();
      }
      assertArrayEquals(before, Files.readAllBytes(path));
      // a copy of the file opened while the sketch was only queried is clean
      Path copy = newPath();
      try (AnySketch s = format.open(path, verify)) {
        s.estimate(ITEMS[0]);
        Files.copy(path, copy);
        try (AnySketch other = format.open(copy, true)) {
          assertEquals(s.estimate(ITEMS[0]), other.estimate(ITEMS[0]));
        }
      }
    }
    try (AnySketch s = format.open(path, true)) {
      assertTrue(s.estimate(ITEMS[0]) > 0);
    }
  }

  // ---------------------------------------------------------------- handles

  @Test
  void failedOpensLeakNoFileHandles() throws IOException {
    assumeTrue(SketchChecks.procAvailable(), "needs /proc/self/fd");
    List<Path> broken = new ArrayList<>();
    List<Path> bodyBroken = new ArrayList<>();
    for (Format format : Format.values()) {
      byte[] bytes = Files.readAllBytes(validFile(format));
      byte[] flipped = bytes.clone();
      flipped[30] ^= 4;
      byte[] bodyFlipped = bytes.clone();
      bodyFlipped[bytes.length - 1] ^= 1;
      Path body = dir.resolve("body-" + format);
      Files.write(body, bodyFlipped);
      bodyBroken.add(body);
      for (byte[] content : List.of(Arrays.copyOf(bytes, bytes.length - 1), flipped, new byte[0],
          "text".getBytes(UTF_8))) {
        Path p = dir.resolve("broken-" + broken.size() + "-" + format);
        Files.write(p, content);
        broken.add(p);
      }
      Path unfinished = dir.resolve("unfinished-" + format);
      AnySketch writer = format.create(unfinished);
      writer.update(1L, 1);
      Path copy = dir.resolve("unfinished-copy-" + format);
      Files.copy(unfinished, copy);
      writer.close();
      broken.add(copy);
    }
    // warm up (class loading may open jar files), then count
    failEveryOpen(broken, bodyBroken);
    int before = SketchChecks.openFdCount();
    for (int round = 0; round < 20; round++) {
      failEveryOpen(broken, bodyBroken);
    }
    int after = SketchChecks.openFdCount();
    int attempts = 20 * (broken.size() * Format.values().length * 2 + Format.values().length);
    broken.addAll(bodyBroken);
    assertTrue(after < before + 10, "open descriptors grew from " + before + " to " + after + " over "
        + attempts + " failed opens");
    for (Path p : broken) {
      assertEquals(List.of(), SketchChecks.fdsOn(p), "descriptors left on " + p);
      assertTrue(!SketchChecks.isMapped(p), "mapping left on " + p);
      Files.delete(p);
    }
  }

  /** Opens every broken file as every format, and each format's body-broken file verified: all fail. */
  private static void failEveryOpen(List<Path> broken, List<Path> bodyBroken) {
    Format[] formats = Format.values();
    for (Path p : broken) {
      for (Format f : formats) {
        openAndFail(f, p);
      }
    }
    for (int i = 0; i < formats.length; i++) {
      openVerifiedAndFail(formats[i], bodyBroken.get(i));
    }
  }

  private static void openVerifiedAndFail(Format format, Path p) {
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> format.open(p, true).close());
    assertTrue(e.getMessage().contains("body checksum mismatch"), e.getMessage());
  }

  private static void openAndFail(Format format, Path p) {
    for (boolean verify : new boolean[] {true, false}) {
      assertThrows(CorruptStoreException.class, () -> format.open(p, verify).close(), p + " as " + format);
    }
  }
}
