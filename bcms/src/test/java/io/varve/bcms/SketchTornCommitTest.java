package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.DelegatingChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A power loss during a commit (the write of state, total weight and body checksum when a sketch
 * opens for writing and when it flushes) may tear it: part of the written bytes new, the rest old.
 * Every tear of both commits, at every byte boundary of the record (new bytes {@code [0, k)} and
 * old after them, and the reverse), must open as the state before the commit or the one after:
 * never refused while the other slot holds a valid record, never with an estimate below the true
 * count. In version 1 the same tears lost the whole sketch, as {@link
 * #aTornVersion1HeaderLosesTheSketch} shows.
 */
class SketchTornCommitTest {
  @TempDir Path dir;

  private static final int ITEMS = 150;

  /** The reference counts and the sketch's estimates of a state of the file. */
  private record State(Map<Long, Long> truth, Map<Long, Long> estimates) {}

  private static long[] items(long seed) {
    return new Random(seed).longs(ITEMS).toArray();
  }

  private static void feed(AnySketch sketch, long[] items, Map<Long, Long> truth, Random random, int updates) {
    for (int i = 0; i < updates; i++) {
      long item = items[random.nextInt(ITEMS)];
      long weight = 1 + random.nextInt(9);
      sketch.update(item, weight);
      truth.merge(item, weight, Long::sum);
    }
  }

  private static State state(AnySketch sketch, long[] items, Map<Long, Long> truth) {
    Map<Long, Long> estimates = new HashMap<>();
    for (long item : items) {
      estimates.put(item, sketch.estimate(item));
    }
    return new State(new HashMap<>(truth), estimates);
  }

  @ParameterizedTest
  @EnumSource(SketchFileCorruptionTest.Format.class)
  void everyTornCommitOpensAsTheStateBeforeOrAfterIt(SketchFileCorruptionTest.Format format) throws IOException {
    long seed = 0x70_4E_C0_33L + format.ordinal();
    System.out.println("SketchTornCommitTest: " + format + ", seed " + Long.toHexString(seed));
    Random random = new Random(seed);
    long[] items = items(seed);
    Map<Long, Long> truth = new HashMap<>();
    Path live = dir.resolve("live-" + format);
    State before;
    byte[] closed;
    try (AnySketch sketch = format.create(live)) {
      feed(sketch, items, truth, random, 2_000);
      sketch.flush();
      before = state(sketch, items, truth);
    }
    closed = Files.readAllBytes(live);

    // The commit that opens the file for writing, before its first change.
    byte[] opened;
    byte[] beforeClose;
    byte[] afterClose;
    State after;
    try (AnySketch sketch = format.open(live, true)) {
      sketch.update(items[0], 5); // writes and forces the open record first
      truth.merge(items[0], 5L, Long::sum);
      opened = Files.readAllBytes(live);
      feed(sketch, items, truth, random, 2_000);
      after = state(sketch, items, truth);
      sketch.flush(); // the body forced, then the closing record written
      afterClose = Files.readAllBytes(live);
      beforeClose = afterClose.clone(); // the body at the closing commit, with the records before it
      System.arraycopy(opened, 0, beforeClose, 0, format.headerLength());
    }
    int header = format.headerLength();
    byte[] openedHeaderOnly = closed.clone(); // at the opening commit the body is still as closed
    System.arraycopy(opened, 0, openedHeaderOnly, 0, header);

    int opening = changedSlot(closed, openedHeaderOnly, header);
    int closing = changedSlot(beforeClose, afterClose, header);
    assertEquals(1 - opening, closing, "each commit writes the slot the one before did not");

    // Opening commit: before it, a closed sketch; after it, one open for writing (refused by open, as
    // a sketch that stopped before its first change, and opened by openAfterCrash with the same counts).
    tearEveryWay(format, closed, openedHeaderOnly, opening, before, before);
    // Closing commit: before it, open for writing with the body complete; after it, closed.
    tearEveryWay(format, beforeClose, afterClose, closing, after, after);
  }

  /** Which slot the commit from {@code old} to {@code now} wrote: the only header bytes it changed are that record's. */
  private static int changedSlot(byte[] old, byte[] now, int header) {
    int slot = -1;
    for (int i = 0; i < header; i++) {
      if (old[i] != now[i]) {
        int s = i < SketchFile.slotOffset(1) ? 0 : 1;
        assertTrue(i >= SketchFile.slotOffset(s) && i < SketchFile.slotOffset(s) + SketchCommit.BYTES,
            "a commit changed header byte " + i + ", outside the records");
        assertTrue(slot == -1 || slot == s, "a commit changed both slots");
        slot = s;
      }
    }
    assertTrue(slot >= 0, "the commit changed no header byte");
    return slot;
  }

  /**
   * Opens every tear of the commit from {@code old} to {@code now} (which differ in the record of
   * {@code slot} and, after the opening commit, nowhere else): as {@code old}'s state when the torn
   * record is not valid, as {@code now}'s when it is the new record.
   */
  private void tearEveryWay(SketchFileCorruptionTest.Format format, byte[] old, byte[] now, int slot, State oldState,
      State newState) throws IOException {
    int at = (int) SketchFile.slotOffset(slot);
    SketchCommit newRecord = SketchFiles.recordIn(now, slot);
    SketchCommit oldRecord = SketchFiles.recordIn(old, slot);
    assertNotNull(newRecord);
    SketchCommit oldNewest = SketchFiles.read(old).header().commit();
    Path torn = dir.resolve("torn-" + format + ".cms");
    int opens = 0;
    for (boolean newFirst : new boolean[] {true, false}) {
      for (int k = 0; k <= SketchCommit.BYTES; k++) {
        byte[] image = (newFirst ? now : old).clone();
        System.arraycopy(newFirst ? old : now, at + k, image, at + k, SketchCommit.BYTES - k);
        SketchCommit record = SketchFiles.recordIn(image, slot);
        boolean isNew = newRecord.equals(record);
        assertTrue(isNew || record == null || record.equals(oldRecord), "a tear made a third record: " + record);
        SketchCommit expected = isNew ? newRecord : oldNewest;
        String context = format + ", slot " + slot + (newFirst ? ", new bytes [0, " : ", old bytes [0, ") + k + ")";
        Files.deleteIfExists(torn);
        Files.write(torn, image);
        for (boolean verify : new boolean[] {true, false}) {
          opens++;
          if (expected.state() == SketchFile.STATE_OPEN) {
            CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> format.open(torn, verify).close(), context);
            assertTrue(e.getMessage().contains("not closed cleanly"), context + ": " + e.getMessage());
          } else {
            try (AnySketch sketch = format.open(torn, verify)) {
              assertMatches(isNew ? newState : oldState, sketch, expected.totalWeight(), context);
            } catch (CorruptStoreException e) {
              fail(context + ": refused though a slot holds a valid record", e);
            }
          }
        }
        if (expected.state() == SketchFile.STATE_OPEN) {
          try (AnySketch sketch = openAfterCrash(format, torn)) {
            assertMatches(isNew ? newState : oldState, sketch, expected.totalWeight(), context + ", openAfterCrash");
          }
          try (AnySketch sketch = format.open(torn, true)) { // recovered: closed cleanly again
            assertEquals(expected.totalWeight(), sketch.totalWeight(), context);
          }
        }
      }
    }
    assertEquals(4 * (SketchCommit.BYTES + 1), opens);
  }

  private static AnySketch openAfterCrash(SketchFileCorruptionTest.Format format, Path path) {
    return format.buffered()
        ? AnySketch.of(BufferedCountMinSketch.openAfterCrash(path, 1 << 16))
        : AnySketch.of(CountMinSketch.openAfterCrash(path));
  }

  /** The sketch answers as {@code state} did, no estimate below the truth, with {@code totalWeight}. */
  private static void assertMatches(State state, AnySketch sketch, long totalWeight, String context) {
    assertEquals(totalWeight, sketch.totalWeight(), context);
    for (Map.Entry<Long, Long> e : state.estimates().entrySet()) {
      long estimate = sketch.estimate(e.getKey());
      long count = state.truth().getOrDefault(e.getKey(), 0L);
      assertTrue(estimate >= count, context + ": item " + e.getKey() + " estimated " + estimate + " < its count " + count);
      assertEquals(e.getValue(), estimate, context + ": item " + e.getKey());
    }
  }

  /**
   * What version 1 did with the same tear: its one header, rewritten in place, fails its checksum,
   * and no way of opening the file reads the sketch whose body is intact.
   */
  @ParameterizedTest
  @EnumSource(SketchFileCorruptionTest.Format.class)
  void aTornVersion1HeaderLosesTheSketch(SketchFileCorruptionTest.Format format) throws IOException {
    Path live = dir.resolve("v2-" + format);
    try (AnySketch sketch = format.create(live)) {
      sketch.update(7L, 3);
    }
    Path v1 = dir.resolve("v1-" + format);
    Files.write(v1, SketchFiles.version1Of(Files.readAllBytes(live)));
    byte[] closed = Files.readAllBytes(v1);
    try (AnySketch sketch = format.open(v1, true)) {
      sketch.update(8L, 1); // rewrites the header in place: state 1
    }
    byte[] after = Files.readAllBytes(v1);
    assertEquals(1, SketchFiles.fields(after).getInt(8), "a version-1 file stays version 1");
    byte[] reopened = closed.clone();
    reopened[60] = 1; // the state the opening commit wrote, and not yet the rest: a tear
    assertArrayEquals(Arrays.copyOfRange(closed, 0, 60), Arrays.copyOfRange(after, 0, 60));
    Files.write(v1, reopened);
    for (boolean verify : new boolean[] {true, false}) {
      CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> format.open(v1, verify).close());
      assertTrue(e.getMessage().contains("checksum mismatch"), e.getMessage());
    }
    assertThrows(CorruptStoreException.class, () -> openAfterCrash(format, v1).close());
  }
  /**
   * The record an open reads may be one a killed writer left unforced; the first commit into the
   * other slot, forced, could then outlive it in a power loss and leave an older record the newest
   * valid one. So the file is forced before the first commit of every open, and each commit writes
   * only its record, in the slot the open did not read.
   */
  @ParameterizedTest
  @EnumSource(SketchFileCorruptionTest.Format.class)
  void theFirstCommitAfterAnOpenForcesTheRecordItRead(SketchFileCorruptionTest.Format format) throws IOException {
    Path path = dir.resolve("forced-" + format);
    format.write(path, s -> s.update(1L, 1));
    List<String> calls = new ArrayList<>();
    SketchFileHandle.opener = (file, options) -> new DelegatingChannel(FileChannel.open(file, options)) {
      @Override
      public void force(boolean metaData) throws IOException {
        calls.add("force");
        super.force(metaData);
      }

      @Override
      public int write(ByteBuffer src, long position) throws IOException {
        if (position < format.headerLength()) {
          calls.add("write " + src.remaining() + " at " + position);
        }
        return super.write(src, position);
      }
    };
    try (AnySketch sketch = format.open(path, true)) {
      sketch.update(2L, 1);
      sketch.flush();
    } finally {
      SketchFileHandle.opener = FileChannel::open;
    }
    // created: open record in slot 0, closed in slot 1; now open in slot 0, closed in slot 1 again
    assertEquals(List.of("force", "write 36 at 4096", "force"), calls.subList(0, 3), calls.toString());
    assertEquals("write 36 at 8192", calls.get(calls.size() - 2), calls.toString());
    assertEquals("force", calls.get(calls.size() - 1), calls.toString());
    assertEquals(2, calls.stream().filter(c -> c.startsWith("write")).count(), calls.toString());
  }

  /**
   * A closed record beside a damaged slot, with a body that changed after it (the damaged slot held
   * a newer open record): the record is older than the counters, so open and openUnverified refuse,
   * and openAfterCrash takes the counters as they are and closes the file again.
   */
  @ParameterizedTest
  @EnumSource(SketchFileCorruptionTest.Format.class)
  void aClosedRecordOlderThanTheBodyIsTakenOnlyByOpenAfterCrash(SketchFileCorruptionTest.Format format) throws IOException {
    Path path = dir.resolve("older-" + format);
    format.write(path, s -> s.update(1L, 4)); // slot 0: open (generation 1), slot 1: closed (generation 2)
    byte[] closed = Files.readAllBytes(path);
    try (AnySketch sketch = format.open(path, true)) {
      sketch.update(2L, 5); // slot 0: open (generation 3), then the body changes
    }
    byte[] bytes = Files.readAllBytes(path);
    // as before the close: generation 2 in slot 1; and generation 3 damaged
    System.arraycopy(SketchFiles.record(closed, 1), 0, bytes, (int) SketchFile.slotOffset(1), SketchCommit.BYTES);
    bytes[(int) SketchFile.slotOffset(0) + 12] ^= 1;
    Path damaged = dir.resolve("damaged-" + format);
    Files.write(damaged, bytes);
    for (boolean verify : new boolean[] {true, false}) {
      CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> format.open(damaged, verify).close());
      assertTrue(e.getMessage().contains("body checksum mismatch") && e.getMessage().contains("openAfterCrash"), e.getMessage());
    }
    try (AnySketch sketch = openAfterCrash(format, damaged)) {
      assertEquals(4, sketch.totalWeight(), "the total weight of the record that answered");
      assertTrue(sketch.estimate(1L) >= 4 && sketch.estimate(2L) >= 5);
    }
    try (AnySketch sketch = format.open(damaged, true)) {
      assertTrue(sketch.estimate(2L) >= 5);
    }
  }
}
