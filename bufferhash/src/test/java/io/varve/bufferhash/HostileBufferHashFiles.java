package io.varve.bufferhash;

import io.varve.core.format.Envelope;
import io.varve.core.testing.HostileDirectories;
import io.varve.core.testing.HostileDirectories.Variant;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The hostile BufferHash directories in {@code hostile/bufferhash}: each is a golden directory
 * ({@code golden/v1-closed}, {@code golden/v1-crashed}, or {@code v2-*} to {@code v5-*} where the
 * variant is about a state version, named in the variant's {@code base} file)
 * with the files of the variant put over it ({@code deleted} lists files to remove). Each lies in a
 * way a structure check must catch: checksums are recomputed where the check under test is not the
 * checksum. Regenerate with {@link #main} after a deliberate format change.
 */
final class HostileBufferHashFiles {
  private HostileBufferHashFiles() {}

  /** The note of a variant: the golden directory (under {@code golden/}) that it is put over. */
  static final String BASE = "base";

  /** A variant put over the golden directory {@code base}. */
  static Variant variant(String base) {
    return new Variant().note(BASE, base);
  }

  static byte[] golden(String base, String file) throws IOException {
    try {
      return Files.readAllBytes(Path.of(HostileBufferHashFiles.class.getResource("/golden/" + base + "/" + file).toURI()));
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static final int SLOT = LogFormat.STATE_SLOT_BYTES;

  /** The state with field {@code field} (0 generation .. 6 buffersCheck) of its newest slot set, crc recomputed. */
  private static byte[] stateWith(String base, int field, long value) throws IOException {
    byte[] state = golden(base, "state");
    int slot = newestSlot(state);
    LogFormat.putLong(state, slot + 8 + 8 * field, value);
    resealSlot(state, slot);
    return state;
  }

  private static int newestSlot(byte[] state) {
    return LogFormat.getLong(state, 8) > LogFormat.getLong(state, SLOT + 8) ? 0 : SLOT;
  }

  private static void resealSlot(byte[] state, int slot) {
    int crcAt = slot + 8 + 56 + (state[slot + 4] >= 3 ? 20 : 12);
    LogFormat.putInt(state, crcAt, Envelope.crc32c(state, slot, crcAt - slot));
  }

  /** The log with the header of the incarnation at {@code page} changed at {@code offset}, crc recomputed. */
  private static byte[] logWithHeaderInt(int page, int offset, int value) throws IOException {
    byte[] log = golden("v1-closed", "log");
    int at = page * LogFormat.PAGE_BYTES;
    LogFormat.putInt(log, at + offset, value);
    LogFormat.putInt(log, at + 28, Envelope.crc32c(log, at, 28));
    return log;
  }

  /** The log with the incarnation at page 0's unit 0 changed by {@code edit}, its crc recomputed (sequence 1). */
  private static byte[] logWithUnit0(java.util.function.Consumer<byte[]> edit) throws IOException {
    byte[] log = golden("v1-closed", "log");
    int start = LogFormat.HEADER_BYTES;
    int footer = LogFormat.PAGE_BYTES - LogFormat.UNIT_FOOTER_BYTES;
    byte[] unit = Arrays.copyOfRange(log, start, LogFormat.PAGE_BYTES);
    edit.accept(unit);
    System.arraycopy(unit, 0, log, start, unit.length);
    LogFormat.putInt(log, footer, LogFormat.unitCrc(0, 1, 0, log, start, footer - start));
    return log;
  }

  /** The buffers file with {@code edit} applied, its crc recomputed, and the state naming it. */
  private static Variant buffersNamed(java.util.function.Consumer<byte[]> edit) throws IOException {
    byte[] buffers = golden("v1-closed", "buffers");
    edit.accept(buffers);
    int end = buffers.length - 4;
    int crc = Envelope.crc32c(buffers, 0, end);
    LogFormat.putInt(buffers, end, crc);
    return variant("v1-closed").with("buffers", buffers).with("state", stateWith("v1-closed", 6, (1L << 32) | (crc & 0xFFFFFFFFL)));
  }

  /** The write-ahead segment with the record at {@code index} edited, its crc recomputed. */
  private static byte[] walWithRecord(int index, java.util.function.ObjIntConsumer<byte[]> edit, boolean reseal) throws IOException {
    byte[] wal = golden("v1-crashed", "wal-0000000000000001");
    int at = 28;
    for (int i = 0; i < index; i++) {
      at += 8 + LogFormat.getInt(wal, at);
    }
    int length = LogFormat.getInt(wal, at);
    edit.accept(wal, at + 8);
    if (reseal) {
      LogFormat.putInt(wal, at + 4, Envelope.crc32c(wal, at + 8, length));
    }
    return wal;
  }

  private static int walRecords() throws IOException {
    byte[] wal = golden("v1-crashed", "wal-0000000000000001");
    int n = 0;
    for (int at = 28; at < wal.length; at += 8 + LogFormat.getInt(wal, at)) {
      n++;
    }
    return n;
  }

  /** The last entry record of the write-ahead segment (after every flushed record it is replayed). */
  private static int lastEntryRecord() throws IOException {
    byte[] wal = golden("v1-crashed", "wal-0000000000000001");
    int last = -1;
    int i = 0;
    for (int at = 28; at < wal.length; at += 8 + LogFormat.getInt(wal, at), i++) {
      if (wal[at + 8 + 8] == WriteAheadLog.KIND_ENTRY) {
        last = i;
      }
    }
    return last;
  }

  /** The id of the {@code v3-*} goldens. */
  private static final long ID = GoldenFilesTest.GOLDEN_TABLE_ID;

  /** Another table's id. */
  private static final long OTHER_ID = 0x0DDBA11L;

  /** {@code base}'s state with both slots' bytes edited by {@code edit} (given the slot's offset), resealed. */
  private static byte[] stateBothSlots(String base, java.util.function.ObjIntConsumer<byte[]> edit) throws IOException {
    byte[] state = golden(base, "state");
    for (int slot = 0; slot < 2 * SLOT; slot += SLOT) {
      edit.accept(state, slot);
      resealSlot(state, slot);
    }
    return state;
  }

  /** {@code base}'s log with the header at page 0 of {@code version}, its check salted with {@code tableId} (0: unsalted). */
  private static byte[] logWithHeader(String base, int version, long tableId) throws IOException {
    byte[] log = golden(base, "log");
    log[4] = (byte) version;
    LogFormat.seal(tableId, log, 0, 28);
    return log;
  }

  /** {@code base}'s first write-ahead segment of {@code version}, its header and records sealed with {@code tableId}; or only record {@code only}. */
  private static byte[] walSealed(String base, int version, long tableId, int only) throws IOException {
    byte[] wal = golden(base, "wal-0000000000000001");
    if (only < 0) {
      wal[4] = (byte) version;
      LogFormat.seal(tableId, wal, 0, 24);
    }
    int i = 0;
    for (int at = 28; at < wal.length; at += 8 + LogFormat.getInt(wal, at), i++) {
      if (only < 0 || only == i) {
        int length = LogFormat.getInt(wal, at);
        LogFormat.putInt(wal, at + 4, LogFormat.check(tableId, wal, at + 8, at + 8 + length));
      }
    }
    return wal;
  }

  /** {@code base}'s buffers file of {@code version} sealed with {@code tableId}, and its state naming it. */
  private static Variant buffersSealed(String base, int version, long tableId) throws IOException {
    byte[] buffers = golden(base, "buffers");
    buffers[4] = (byte) version;
    int crc = LogFormat.seal(tableId, buffers, 0, buffers.length - 4);
    return variant(base).with("buffers", buffers).with("state", stateWith(base, 6, (1L << 32) | (crc & 0xFFFFFFFFL)));
  }

  /** The newest write-ahead segment of the {@code v4-crashed} golden. */
  private static String newestSegmentOfV4() throws IOException {
    try (java.util.stream.Stream<Path> files = Files.list(Path.of(HostileBufferHashFiles.class.getResource("/golden/v4-crashed").toURI()))) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("wal-")).sorted().reduce((a, b) -> b).orElseThrow();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The {@code v4-crashed} sync mark with slot {@code slot}'s fields set by {@code edit} (given the slot's offset) and resealed with {@code id}. */
  private static byte[] markWith(byte[] mark, int slot, java.util.function.ObjIntConsumer<byte[]> edit, long id) {
    int at = slot * WalSyncMark.SLOT_SPACING;
    edit.accept(mark, at);
    LogFormat.seal(id, mark, at, at + 32);
    return mark;
  }

  /** The write-ahead sync mark (state version 4): damaged, lying, another table's, or a segment shorter than it says. */
  private static void syncMarkVariants(Map<String, Variant> v) throws IOException {
    String segment = newestSegmentOfV4();
    byte[] wal = golden("v4-crashed", segment);
    byte[] mark = golden("v4-crashed", WalSyncMark.FILE);
    int newest = LogFormat.getLong(mark, 8) > LogFormat.getLong(mark, WalSyncMark.SLOT_SPACING + 8) ? 0 : 1;
    if (LogFormat.getLong(mark, newest * WalSyncMark.SLOT_SPACING + 24) != wal.length) {
      throw new IllegalStateException("the v4 golden's sync mark does not name the whole newest segment");
    }
    int lastRecord = 28;
    for (int at = 28; at < wal.length; at += 8 + LogFormat.getInt(wal, at)) {
      lastRecord = at;
    }
    v.put("wal-v4-newest-segment-cut-at-a-record-boundary", variant("v4-crashed").with(segment, Arrays.copyOf(wal, lastRecord)));
    v.put("wal-v4-newest-segment-missing", variant("v4-crashed").with(segment, null));
    v.put("walmark-missing", variant("v4-crashed").with(WalSyncMark.FILE, null));
    v.put("walmark-cut-short", variant("v4-crashed").with(WalSyncMark.FILE, Arrays.copyOf(mark, WalSyncMark.SLOT_SPACING)));
    byte[] bothDamaged = mark.clone();
    bothDamaged[20] ^= 1;
    bothDamaged[WalSyncMark.SLOT_SPACING + 20] ^= 1;
    v.put("walmark-both-slots-damaged", variant("v4-crashed").with(WalSyncMark.FILE, bothDamaged));
    v.put("walmark-of-another-table", variant("v4-crashed").with(WalSyncMark.FILE,
        markWith(markWith(mark.clone(), 0, (m, at) -> {}, OTHER_ID), 1, (m, at) -> {}, OTHER_ID)));
    java.util.function.ObjIntConsumer<byte[]> beyond = (m, at) -> LogFormat.putLong(m, at + 24, wal.length + 1);
    v.put("walmark-length-beyond-the-segment", variant("v4-crashed").with(WalSyncMark.FILE, markWith(markWith(mark.clone(), 0, beyond, ID), 1, beyond, ID)));
    java.util.function.ObjIntConsumer<byte[]> laterSegment = (m, at) -> LogFormat.putLong(m, at + 16, LogFormat.getLong(m, at + 16) + 1);
    v.put("walmark-names-a-later-segment", variant("v4-crashed").with(WalSyncMark.FILE,
        markWith(markWith(mark.clone(), 0, laterSegment, ID), 1, laterSegment, ID)));
    java.util.function.ObjIntConsumer<byte[]> negative = (m, at) -> LogFormat.putLong(m, at + 24, -1);
    v.put("walmark-negative-length", variant("v4-crashed").with(WalSyncMark.FILE, markWith(markWith(mark.clone(), 0, negative, ID), 1, negative, ID)));
    // One slot damaged falls back to the other, which is checked as strictly.
    for (int damaged = 0; damaged < 2; damaged++) {
      byte[] oneDamaged = markWith(mark.clone(), 1 - damaged, beyond, ID);
      LogFormat.putLong(oneDamaged, (1 - damaged) * WalSyncMark.SLOT_SPACING + 8, 1L << 40); // the newer, if both were valid
      LogFormat.seal(ID, oneDamaged, (1 - damaged) * WalSyncMark.SLOT_SPACING, (1 - damaged) * WalSyncMark.SLOT_SPACING + 32);
      oneDamaged[damaged * WalSyncMark.SLOT_SPACING + 20] ^= 1;
      v.put("walmark-slot-" + damaged + "-damaged-the-other-beyond-the-segment", variant("v4-crashed").with(WalSyncMark.FILE, oneDamaged));
    }
  }

  /**
   * The first segment that must exist (state version 5, sync mark version 2): the segments from
   * it to the newest the mark names must all be there, the oldest and the middle ones as well.
   */
  private static void firstSegmentVariants(Map<String, Variant> v) throws IOException {
    byte[] mark = golden("v5-crashed", WalSyncMark.FILE);
    int newest = LogFormat.getLong(mark, 8) > LogFormat.getLong(mark, WalSyncMark.SLOT_SPACING + 8) ? 0 : WalSyncMark.SLOT_SPACING;
    long first = LogFormat.getLong(mark, newest + 32);
    long last = LogFormat.getLong(mark, newest + 16);
    if (mark.length != WalSyncMark.fileBytes(2) || mark[newest + 4] != 2 || last - first < 2 || LogFormat.getLong(mark, newest + 24) == 0) {
      throw new IllegalStateException("the v5 golden's sync mark does not name three segments or more: first " + first + ", newest " + last);
    }
    v.put("wal-v5-oldest-segment-missing", variant("v5-crashed").with(WriteAheadLog.segmentName(first), null));
    v.put("wal-v5-middle-segment-missing", variant("v5-crashed").with(WriteAheadLog.segmentName(first + 1), null));
    byte[] firstAfterNewest = mark.clone();
    for (int at = 0; at <= WalSyncMark.SLOT_SPACING; at += WalSyncMark.SLOT_SPACING) {
      LogFormat.putLong(firstAfterNewest, at + 32, LogFormat.getLong(firstAfterNewest, at + 16) + 1);
      LogFormat.seal(ID, firstAfterNewest, at, at + 40);
    }
    v.put("walmark-v5-first-segment-after-the-newest", variant("v5-crashed").with(WalSyncMark.FILE, firstAfterNewest));
    v.put("walmark-v1-under-a-v5-state", variant("v5-crashed").with(WalSyncMark.FILE, golden("v4-crashed", WalSyncMark.FILE)));
  }

  /** Variants of the state versions and table ids: a structure of one version under a state of another, or salted with another id. */
  private static void tableIdVariants(Map<String, Variant> v) throws IOException {
    // (state-version-5 until state version 5 was made: it now reads as a version-5 state, whose walmark is missing)
    v.put("state-version-6", variant("v3-closed").with("state", stateBothSlots("v3-closed", (s, slot) -> s[slot + 4] = 6)));
    v.put("state-v3-table-id-zero", variant("v3-closed").with("state", stateBothSlots("v3-closed", (s, slot) -> LogFormat.putLong(s, slot + 8 + 56 + 12, 0))));
    // A version-2 state's table has no id: a version-2 incarnation (salted with any id) is another table's.
    v.put("header-v2-salted-under-a-v2-state", variant("v2-closed").with("log", logWithHeader("v2-closed", 2, ID)));
    // A version-3 state's table writes version 2 only: a version-1 (unsalted) incarnation is another table's.
    v.put("header-v1-under-a-v3-state", variant("v3-closed").with("log", logWithHeader("v3-closed", 1, 0)));
    v.put("header-of-another-table", variant("v3-closed").with("log", logWithHeader("v3-closed", 2, OTHER_ID)));
    byte[] unitOfAnother = golden("v3-closed", "log");
    int footer = LogFormat.PAGE_BYTES - LogFormat.UNIT_FOOTER_BYTES;
    LogFormat.putInt(unitOfAnother, footer, LogFormat.unitCrc(OTHER_ID, LogFormat.getLong(unitOfAnother, 12), 0, unitOfAnother,
        LogFormat.HEADER_BYTES, footer - LogFormat.HEADER_BYTES));
    if (LogFormat.getInt(unitOfAnother, LogFormat.HEADER_BYTES) != 1) {
      throw new IllegalStateException("the v3 golden's first unit is not one page");
    }
    v.put("unit-of-another-table", variant("v3-closed").with("log", unitOfAnother));
    v.put("buffers-v1-under-a-v3-state", buffersSealed("v3-closed", 1, 0));
    v.put("buffers-v2-under-a-v2-state", buffersSealed("v2-closed", 2, ID));
    v.put("buffers-of-another-table", buffersSealed("v3-closed", 2, OTHER_ID));
    v.put("wal-v1-segment-under-a-v3-state", variant("v3-crashed").with("wal-0000000000000001", walSealed("v3-crashed", 1, 0, -1)));
    v.put("wal-v2-segment-under-a-v2-state", variant("v2-crashed").with("wal-0000000000000001", walSealed("v2-crashed", 2, ID, -1)));
    v.put("wal-segment-of-another-table", variant("v3-crashed").with("wal-0000000000000001", walSealed("v3-crashed", 2, OTHER_ID, -1)));
    v.put("wal-record-of-another-table", variant("v3-crashed").with("wal-0000000000000001", walSealed("v3-crashed", 2, OTHER_ID, 0)));
  }

  static Map<String, Variant> variants() throws IOException {
    Map<String, Variant> v = new LinkedHashMap<>();
    v.put("state-log-pages-beyond-the-file", variant("v1-closed").with("state", stateWith("v1-closed", 1, 17)));
    v.put("state-head-beyond-the-log", variant("v1-closed").with("state", stateWith("v1-closed", 3, 99)));
    v.put("state-head-short-of-the-incarnations", variant("v1-closed").with("state", stateWith("v1-closed", 3, 5)));
    v.put("state-tail-sequence-after-next", variant("v1-closed").with("state", stateWith("v1-closed", 4, 9)));
    v.put("state-next-sequence-skips-ahead", variant("v1-closed").with("state", stateWith("v1-closed", 5, 7)));
    // A skip of a whole lap is valid from state version 2 on; a version-1 state never skips.
    byte[] v1State = golden("v1-closed", "state");
    int v1Slot = newestSlot(v1State);
    long lap = LogFormat.getLong(v1State, v1Slot + 8 + 8) + 1;
    v.put("state-v1-next-sequence-skips-a-lap", variant("v1-closed").with("state", stateWith("v1-closed", 5, LogFormat.getLong(v1State, v1Slot + 8 + 8 * 5) + lap)));
    byte[] noTables = golden("v1-closed", "state");
    LogFormat.putInt(noTables, newestSlot(noTables) + 64, 0);
    resealSlot(noTables, newestSlot(noTables));
    v.put("state-no-super-tables", variant("v1-closed").with("state", noTables));
    // Re-checksummed with more super tables than the log holds: was IllegalArgumentException from the tuning.
    byte[] tooManyTables = golden("v1-closed", "state");
    LogFormat.putInt(tooManyTables, newestSlot(tooManyTables) + 64, 1 << 30);
    resealSlot(tooManyTables, newestSlot(tooManyTables));
    v.put("state-more-super-tables-than-the-log-holds", variant("v1-closed").with("state", tooManyTables));
    byte[] bothBad = golden("v1-closed", "state");
    bothBad[20] ^= 1;
    bothBad[SLOT + 20] ^= 1;
    v.put("state-both-slots-damaged", variant("v1-closed").with("state", bothBad));
    v.put("state-missing", variant("v1-closed").with("state", null));
    v.put("log-missing", variant("v1-closed").with("log", null));
    v.put("header-super-table-out-of-range", variant("v1-closed").with("log", logWithHeaderInt(0, 8, 5)));
    v.put("header-of-the-other-super-table", variant("v1-closed").with("log", logWithHeaderInt(0, 8, 1)));
    v.put("header-sequence-out-of-order", variant("v1-closed").with("log", logWithHeaderInt(2, 16, 7)));
    v.put("header-pages-beyond-the-log", variant("v1-closed").with("log", logWithHeaderInt(5, 20, 100)));
    v.put("header-zero-pages", variant("v1-closed").with("log", logWithHeaderInt(0, 20, 0)));
    v.put("header-more-entries-than-the-units", variant("v1-closed").with("log", logWithHeaderInt(0, 24, 1000)));
    // More entries than its pages could hold (two bytes each at least): sized arrays of 16 GiB.
    v.put("header-entries-beyond-the-pages", variant("v1-closed").with("log", logWithHeaderInt(0, 24, Integer.MAX_VALUE)));
    v.put("header-version-2", variant("v1-closed").with("log", logWithHeaderInt(0, 4, 2 << 24)));
    v.put("unit-run-past-the-incarnation", variant("v1-closed").with("log", logWithUnit0(unit -> LogFormat.putInt(unit, 0, 50))));
    v.put("unit-entry-count-huge", variant("v1-closed").with("log", logWithUnit0(unit -> LogFormat.putInt(unit, 4, 100_000))));
    v.put("unit-entry-runs-past-the-unit", variant("v1-closed").with("log", logWithUnit0(unit -> unit[8] = (byte) 0x7F)));
    v.put("unit-varint-overflow", variant("v1-closed").with("log", logWithUnit0(unit -> Arrays.fill(unit, 8, 14, (byte) 0xFF))));
    v.put("unit-first-key-changed-out-of-order", variant("v1-closed").with("log", logWithUnit0(unit -> unit[8 + 2 + 3] ^= 0x55)));
    v.put("buffers-missing-but-named", variant("v1-closed").with("buffers", null));
    v.put("buffers-for-another-table-count", buffersNamed(b -> LogFormat.putInt(b, 16, 3)));
    v.put("buffers-super-tables-out-of-order", buffersNamed(b -> LogFormat.putInt(b, 20, 1)));
    v.put("buffers-entry-count-past-the-end", buffersNamed(b -> LogFormat.putInt(b, 24, 1_000_000)));
    byte[] other = golden("v1-closed", "buffers");
    other[40] ^= 1;
    LogFormat.putInt(other, other.length - 4, Envelope.crc32c(other, 0, other.length - 4));
    v.put("buffers-not-the-one-the-state-names", variant("v1-closed").with("buffers", other));
    byte[] damagedBuffers = golden("v1-closed", "buffers");
    damagedBuffers[40] ^= 1;
    v.put("buffers-damaged", variant("v1-closed").with("buffers", damagedBuffers));
    int last = lastEntryRecord();
    v.put("wal-sequence-gap", variant("v1-crashed").with("wal-0000000000000001", walWithRecord(1, (w, body) -> LogFormat.putLong(w, body, 9), true)));
    v.put("wal-unknown-kind", variant("v1-crashed").with("wal-0000000000000001", walWithRecord(0, (w, body) -> w[body + 8] = 9, true)));
    v.put(
        "wal-super-table-out-of-range",
        variant("v1-crashed").with("wal-0000000000000001", walWithRecord(0, (w, body) -> LogFormat.putInt(w, body + 9, 2), true)));
    v.put(
        "wal-entry-of-the-other-super-table",
        variant("v1-crashed")
            .with("wal-0000000000000001", walWithRecord(last, (w, body) -> LogFormat.putInt(w, body + 9, 1 - LogFormat.getInt(w, body + 9)), true)));
    v.put("wal-damaged-record-before-others", variant("v1-crashed").with("wal-0000000000000001", walWithRecord(0, (w, body) -> w[body + 14] ^= 1, false)));
    v.put(
        "wal-segment-renamed",
        variant("v1-crashed").with("wal-0000000000000001", null).with("wal-0000000000000002", golden("v1-crashed", "wal-0000000000000001")));
    // A length grown past the end of the newest segment, the record whole after it: damage, where
    // one cut short by a crash is dropped (before, it was taken as cut short, and the synced
    // records from there on were dropped without a word).
    java.util.function.ObjIntConsumer<byte[]> lengthPastTheEnd = (w, body) -> LogFormat.putInt(w, body - 8, LogFormat.getInt(w, body - 8) + (1 << 20));
    v.put("wal-record-length-past-the-end", variant("v1-crashed").with("wal-0000000000000001", walWithRecord(1, lengthPastTheEnd, false)));
    v.put("wal-last-record-length-past-the-end", variant("v1-crashed").with("wal-0000000000000001", walWithRecord(walRecords() - 1, lengthPastTheEnd, false)));
    tableIdVariants(v);
    syncMarkVariants(v);
    firstSegmentVariants(v);
    if (walRecords() < 3 || last < 0) {
      throw new IllegalStateException("the golden write-ahead log is too short for the variants");
    }
    return v;
  }

  /** Writes the folder {@code args[0]} (e.g. bufferhash/src/test/resources/hostile/bufferhash), replacing it. */
  public static void main(String[] args) throws IOException {
    HostileDirectories.write(Path.of(args[0]), variants());
  }
}
