package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.DelegatingChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A read of one commit slot's page that fails (a sector the device cannot read, for now or for
 * good) while the sketch opens. Before, any such error failed the open with a bare
 * UncheckedIOException, whatever the other slot held. Now the slot counts as invalid only when the
 * other slot's record is provably the newest (closed, and the body matches its checksum); otherwise
 * the unreadable slot may hold a newer record, and the next commit (into the slot not holding the
 * record read) would write an older total weight over it: the open is refused with a retryable
 * {@link SketchCommitUnreadableException}, and nothing is written.
 */
class SketchSlotReadErrorTest {
  @TempDir Path dir;

  @AfterEach
  void readsWorkAgain() {
    SketchFileHandle.opener = FileChannel::open;
  }

  /** Sketch files open with reads of the pages of {@code slots} failing. */
  private static void failReadsOf(Set<Integer> slots) {
    SketchFileHandle.opener = (file, options) -> new DelegatingChannel(FileChannel.open(file, options)) {
      @Override
      public int read(ByteBuffer dst, long position) throws IOException {
        for (int slot : slots) {
          long start = SketchFile.slotOffset(slot);
          if (position < start + SketchFile.SLOT_SPACING && position + dst.remaining() > start) {
            throw new IOException("Input/output error (injected, slot " + slot + ")");
          }
        }
        return super.read(dst, position);
      }
    };
  }

  /**
   * A sketch created with 1 x 4, reopened and given 2 x 5: slot 0 holds the open record of
   * generation 3 (total weight 4), slot 1 the closed one of generation 4 (total weight 9).
   */
  private Path twoSessions(SketchFileCorruptionTest.Format format, String name) {
    Path path = dir.resolve(name + "-" + format);
    format.write(path, s -> s.update(1L, 4));
    try (AnySketch sketch = format.open(path, true)) {
      sketch.update(2L, 5);
    }
    return path;
  }

  private static AnySketch openAfterCrash(SketchFileCorruptionTest.Format format, Path path) {
    return format.buffered()
        ? AnySketch.of(BufferedCountMinSketch.openAfterCrash(path, 1 << 16))
        : AnySketch.of(CountMinSketch.openAfterCrash(path));
  }

  /** The three opens: open, openUnverified, openAfterCrash. */
  private static Supplier<AnySketch>[] opens(SketchFileCorruptionTest.Format format, Path path) {
    @SuppressWarnings("unchecked")
    Supplier<AnySketch>[] opens = new Supplier[] {
        () -> format.open(path, true), () -> format.open(path, false), () -> openAfterCrash(format, path)};
    return opens;
  }

  private static SketchCommitUnreadableException refusedAsUnreadable(Supplier<AnySketch> open, Path path) {
    UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> open.get().close());
    SketchCommitUnreadableException unreadable = assertInstanceOf(SketchCommitUnreadableException.class, e.getCause(),
        "not the typed, retryable refusal: " + e.getCause());
    assertTrue(unreadable.getMessage().contains(path.toString()), unreadable.getMessage());
    return unreadable;
  }

  /** The older slot unreadable: the newest record, closed and matching the body, answers alone. */
  @ParameterizedTest
  @EnumSource(SketchFileCorruptionTest.Format.class)
  void anUnreadableOlderSlotLeavesTheNewestToAnswer(SketchFileCorruptionTest.Format format) throws IOException {
    Path path = twoSessions(format, "older-unreadable");
    failReadsOf(Set.of(0));
    for (Supplier<AnySketch> open : opens(format, path)) {
      try (AnySketch sketch = open.get()) {
        assertEquals(9, sketch.totalWeight());
        assertTrue(sketch.estimate(1L) >= 4 && sketch.estimate(2L) >= 5);
      }
    }
    try (AnySketch sketch = format.open(path, true)) { // commits into slot 0, then slot 1
      sketch.update(3L, 1);
    }
    readsWorkAgain();
    try (AnySketch sketch = format.open(path, true)) {
      assertEquals(10, sketch.totalWeight());
      assertTrue(sketch.estimate(3L) >= 1);
    }
  }

  /**
   * The newest slot (closed, generation 4) unreadable: the other holds the open record of
   * generation 3, which openAfterCrash would take and commit, with its older total weight, over
   * generation 4. Every open is refused, the file left as it was; it opens whole once it reads.
   */
  @ParameterizedTest
  @EnumSource(SketchFileCorruptionTest.Format.class)
  void anUnreadableNewestSlotIsNotRolledBack(SketchFileCorruptionTest.Format format) throws IOException {
    Path path = twoSessions(format, "newest-unreadable");
    byte[] before = Files.readAllBytes(path);
    failReadsOf(Set.of(1));
    for (Supplier<AnySketch> open : opens(format, path)) {
      SketchCommitUnreadableException e = refusedAsUnreadable(open, path);
      assertTrue(e.getMessage().contains("slot 1"), e.getMessage());
      assertTrue(e.getCause().getMessage().contains("injected, slot 1"), e.getCause().toString());
    }
    assertArrayEquals(before, Files.readAllBytes(path), "a refused open wrote the file");
    readsWorkAgain();
    try (AnySketch sketch = format.open(path, true)) {
      assertEquals(9, sketch.totalWeight());
      assertTrue(sketch.estimate(1L) >= 4 && sketch.estimate(2L) >= 5);
    }
  }

  /**
   * The newest slot, an open record whose writer then changed the body, unreadable: the closed
   * record beside it does not match the body. Refused as unreadable (not as damage: the file may be
   * whole), by openAfterCrash too; once the slot reads, open says the file was not closed cleanly.
   */
  @ParameterizedTest
  @EnumSource(SketchFileCorruptionTest.Format.class)
  void aClosedRecordOlderThanTheBodyBesideAnUnreadableSlotIsRefused(SketchFileCorruptionTest.Format format)
      throws IOException {
    Path path = dir.resolve("crashed-" + format);
    format.write(path, s -> s.update(1L, 4)); // slot 1: closed, generation 2
    byte[] closed = Files.readAllBytes(path);
    try (AnySketch sketch = format.open(path, true)) {
      sketch.update(2L, 5); // slot 0: open, generation 3; then the body changes
    }
    byte[] bytes = Files.readAllBytes(path);
    System.arraycopy(SketchFiles.record(closed, 1), 0, bytes, (int) SketchFile.slotOffset(1), SketchCommit.BYTES);
    Files.write(path, bytes); // as if killed before its close's commit
    failReadsOf(Set.of(0));
    for (Supplier<AnySketch> open : opens(format, path)) {
      SketchCommitUnreadableException e = refusedAsUnreadable(open, path);
      assertTrue(e.getMessage().contains("slot 0"), e.getMessage());
    }
    assertArrayEquals(bytes, Files.readAllBytes(path), "a refused open wrote the file");
    readsWorkAgain();
    CorruptStoreException unclean = assertThrows(CorruptStoreException.class, () -> format.open(path, true).close());
    assertTrue(unclean.getMessage().contains("not closed cleanly"), unclean.getMessage());
    try (AnySketch sketch = openAfterCrash(format, path)) {
      assertEquals(4, sketch.totalWeight());
      assertTrue(sketch.estimate(1L) >= 4 && sketch.estimate(2L) >= 5);
    }
  }

  /** Both slots unreadable, or one unreadable and the other damaged: refused as unreadable, naming both errors. */
  @ParameterizedTest
  @EnumSource(SketchFileCorruptionTest.Format.class)
  void noReadableValidSlotIsRefusedAsUnreadable(SketchFileCorruptionTest.Format format) throws IOException {
    Path path = twoSessions(format, "none");
    failReadsOf(Set.of(0, 1));
    for (Supplier<AnySketch> open : opens(format, path)) {
      SketchCommitUnreadableException e = refusedAsUnreadable(open, path);
      assertEquals(2, e.getSuppressed().length, Arrays.toString(e.getSuppressed()));
      assertTrue(e.getSuppressed()[0].getMessage().contains("slot 0") && e.getSuppressed()[1].getMessage().contains("slot 1"),
          Arrays.toString(e.getSuppressed()));
    }
    readsWorkAgain();
    byte[] bytes = Files.readAllBytes(path);
    bytes[(int) SketchFile.slotOffset(0) + 12] ^= 1; // slot 0's record damaged
    Files.write(path, bytes);
    failReadsOf(Set.of(1));
    for (Supplier<AnySketch> open : opens(format, path)) {
      refusedAsUnreadable(open, path);
    }
    readsWorkAgain();
    try (AnySketch sketch = format.open(path, true)) {
      assertEquals(9, sketch.totalWeight());
    }
  }
}
