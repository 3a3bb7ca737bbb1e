package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.files.FileTrees;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a crash leaves at the end of the newest log (its last record cut short at any byte, torn
 * with its length complete and its checksum wrong, or followed by zeros) is dropped on open, and
 * exactly that: every record before it stays, the file is cut after the last whole record, and
 * writes after the open go on from there and survive another open. Damage anywhere else (a record
 * of the newest log with records after it, any record of a frozen log) is a {@link
 * CorruptStoreException}.
 */
class SiltLogTornTailTest {
  static final long SEED = 0x5117_7A11L;
  @TempDir Path temp;
  SiltFixture fixture;
  byte[] newest;
  List<SiltTestFiles.Rec> records;
  /** A copy of the pristine store that each case damages, then restores. */
  Path work;
  byte[][] pristineLogs = new byte[4][];

  @BeforeEach
  void build() throws IOException {
    fixture = SiltFixture.build(temp.resolve("pristine"), SEED, 12);
    newest = Files.readAllBytes(fixture.logFile(SiltFixture.NEWEST));
    records = SiltTestFiles.records(newest);
    assertEquals(fixture.records(SiltFixture.NEWEST), records.size());
    work = temp.resolve("work");
    FileTrees.copyTree(fixture.dir, work);
    for (int tier = SiltFixture.FROZEN_OLDER; tier <= SiltFixture.NEWEST; tier++) {
      pristineLogs[tier] = Files.readAllBytes(fixture.logFile(tier));
    }
  }

  /** The work copy, restored to the pristine store, with the log of {@code tier} replaced by {@code log}. */
  private Path copyWith(int tier, byte[] log) throws IOException {
    for (int t = SiltFixture.FROZEN_OLDER; t <= SiltFixture.NEWEST; t++) {
      Files.write(SiltTestFiles.log(work, fixture.logNumbers[t]), t == tier ? log : pristineLogs[t]);
    }
    // An open that took writes synced them, and its mark with them: each case starts from the fixture's.
    Files.copy(fixture.dir.resolve(SiltSyncMark.FILE), work.resolve(SiltSyncMark.FILE), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    return work;
  }

  private SiltTestFiles.Rec last() {
    return records.get(records.size() - 1);
  }

  /**
   * Opens a copy whose newest log is {@code log}: it must keep exactly the first {@code kept}
   * records, cut the file after them, take new writes after them and keep those through another
   * open.
   */
  private void assertKeeps(byte[] log, int kept, String context) throws IOException {
    assertKeeps(log, kept, context, SiltFixture.OPTIONS);
  }

  /** As {@link #assertKeeps(byte[], int, String)}, the first open with {@code options}. */
  private void assertKeeps(byte[] log, int kept, String context, SiltOptions options) throws IOException {
    Path dir = copyWith(SiltFixture.NEWEST, log);
    Path file = SiltTestFiles.log(dir, fixture.logNumbers[SiltFixture.NEWEST]);
    Map<ByteBuffer, byte[]> model = new HashMap<>(fixture.expected(SiltFixture.NEWEST, kept));
    int keptEnd = kept == 0 ? SiltLog.HEADER_BYTES : records.get(kept - 1).end();
    byte[] added = ("after " + context).getBytes(StandardCharsets.UTF_8);
    byte[] deleted = model.keySet().iterator().next().array();
    try (SiltStore store = SiltTestFiles.open(dir, options)) {
      assertEquals(keptEnd, Files.size(file), context + ": the log is cut after its last whole record");
      fixture.check(store, model, context);
      store.put(added, added);
      store.delete(deleted);
      store.sync();
    }
    model.put(ByteBuffer.wrap(added), added);
    model.remove(ByteBuffer.wrap(deleted));
    List<SiltTestFiles.Rec> after = SiltTestFiles.records(Files.readAllBytes(file));
    assertEquals(kept + 2, after.size(), context + ": the new writes follow the kept records");
    assertTrue(Arrays.equals(newest, 0, keptEnd, Files.readAllBytes(file), 0, keptEnd), context + ": the kept records are untouched");
    try (SiltStore store = SiltTestFiles.open(dir, SiltFixture.OPTIONS)) {
      fixture.check(store, model, context + ", reopened after new writes");
      assertTrue(Arrays.equals(added, store.get(added)));
    }
    SiltStoreModelTest.assertOnlyNamedFiles(dir);
  }

  private CorruptStoreException assertRefused(int tier, byte[] log, String context) throws IOException {
    return assertRefused(tier, log, context, SiltFixture.OPTIONS);
  }

  private CorruptStoreException assertRefused(int tier, byte[] log, String context, SiltOptions options) throws IOException {
    Path dir = copyWith(tier, log);
    return assertThrows(CorruptStoreException.class, () -> SiltTestFiles.open(dir, options).close(), context);
  }

  private static boolean allZeros(byte[] bytes, int from, int to) {
    for (int i = from; i < to; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static byte[] withZeros(byte[] bytes, int length, int zeros) {
    return Arrays.copyOf(Arrays.copyOf(bytes, length), length + zeros);
  }

  @Test
  void theNewestLogCutAtEveryOffsetOfItsLastRecords() throws IOException {
    System.out.println("SiltLogTornTailTest seed " + SEED + ": newest log of " + newest.length + " bytes, " + records.size() + " records");
    int from = records.get(records.size() - 3).offset();
    for (int cut = from; cut <= newest.length; cut++) {
      int kept = 0;
      while (kept < records.size() && records.get(kept).end() <= cut) {
        kept++;
      }
      assertKeeps(Arrays.copyOf(newest, cut), kept, "cut at " + cut);
    }
    // Every record boundary, and the header alone.
    for (int kept = 0; kept < records.size() - 3; kept++) {
      int end = kept == 0 ? SiltLog.HEADER_BYTES : records.get(kept - 1).end();
      assertKeeps(Arrays.copyOf(newest, end), kept, "cut after record " + kept);
    }
    for (int cut = 0; cut < SiltLog.HEADER_BYTES; cut++) {
      assertRefused(SiltFixture.NEWEST, Arrays.copyOf(newest, cut), "the header cut at " + cut);
    }
  }

  @Test
  void zerosAfterTheNewestLogAreDropped() throws IOException {
    int n = records.size();
    SiltTestFiles.Rec last = last();
    for (int zeros : new int[] {1, 3, 7, 8, 9, 100, 4096, 70_000}) {
      assertKeeps(withZeros(newest, newest.length, zeros), n, zeros + " zeros after the whole log");
      assertKeeps(withZeros(newest, last.offset() + 3, zeros), n - 1, zeros + " zeros after a cut record header");
      assertKeeps(withZeros(newest, last.body() + 2, zeros), n - 1, zeros + " zeros after a cut record body");
      // The record whole but for its last bytes, which a crash left as zeros (its checksum fails).
      byte[] zeroedEnd = newest.clone();
      int from = last.end() - Math.min(zeros, last.length());
      while (from > last.body() && allZeros(newest, from, last.end())) {
        from--; // zeros over zeros would leave the record whole
      }
      Arrays.fill(zeroedEnd, from, last.end(), (byte) 0);
      assertKeeps(withZeros(zeroedEnd, last.end(), zeros), n - 1, zeros + " zeros over and after the last record's end");
    }
  }

  @Test
  void aTornLastRecordIsDropped() throws IOException {
    SiltTestFiles.Rec last = last();
    // Its length complete and right; a byte of its checksum or body wrong.
    for (int at = last.offset() + 4; at < last.end(); at++) {
      for (int mask : new int[] {0x01, 0x80, 0xFF}) {
        byte[] torn = newest.clone();
        torn[at] ^= (byte) mask;
        assertKeeps(torn, records.size() - 1, "byte " + at + " of the last record ^ " + mask);
      }
      byte[] tornThenZeros = newest.clone();
      tornThenZeros[at] ^= 0x10;
      assertKeeps(withZeros(tornThenZeros, tornThenZeros.length, 50), records.size() - 1, "byte " + at + " torn, then zeros");
    }
  }

  @Test
  void aDamagedRecordBeforeTheNewestLogsTailIsRefused() throws IOException {
    for (int i = 0; i < records.size() - 1; i++) {
      SiltTestFiles.Rec r = records.get(i);
      for (int at = r.offset() + 4; at < r.end(); at++) {
        byte[] damaged = newest.clone();
        damaged[at] ^= 0x21;
        assertRefused(SiltFixture.NEWEST, damaged, "record " + i + ", byte " + at);
      }
      for (int length : new int[] {r.length() | 0x8000_0000, -1, 0, 1, r.length() - 1, r.length() + 1}) {
        byte[] damaged = newest.clone();
        SiltTestFiles.putInt(damaged, r.offset(), length);
        assertRefused(SiltFixture.NEWEST, damaged, "record " + i + " with length " + length);
      }
      // A whole record whose checksum holds but whose body is not a record: not a crash's doing.
      for (byte kind : new byte[] {0, 3, (byte) 0x81}) {
        assertRefused(SiltFixture.NEWEST, withKind(newest, r, kind), "record " + i + " of kind " + kind);
      }
    }
  }

  @Test
  void aMalformedLastRecordWithAGoodChecksumIsRefusedNotDropped() throws IOException {
    SiltTestFiles.Rec last = last();
    for (byte kind : new byte[] {0, 3, SiltLog.DELETE}) {
      // A put turned into a delete with a value after its key: malformed.
      assertRefused(SiltFixture.NEWEST, withKind(newest, last, kind), "the last record, of kind " + kind + ", resealed");
    }
    byte[] varint = newest.clone();
    Arrays.fill(varint, last.body() + 1, last.end(), (byte) 0xFF);
    SiltTestFiles.resealRecord(varint, last.offset());
    assertRefused(SiltFixture.NEWEST, varint, "the last record's key length a malformed varint, resealed");
  }

  private static byte[] withKind(byte[] log, SiltTestFiles.Rec r, byte kind) {
    byte[] damaged = log.clone();
    damaged[r.body()] = kind;
    SiltTestFiles.resealRecord(damaged, r.offset());
    return damaged;
  }

  /**
   * With {@link SiltOptions#dropDamagedLogTail}, a damaged record of the newest log goes with every
   * record after it: a hole a power loss left among writes not yet synced (the record's pages lost,
   * later ones kept), or a flipped byte. Without it the same logs are refused, and the error names
   * the option. A frozen log stays refused either way.
   */
  @Test
  void aDamagedRecordOfTheNewestLogIsDroppedWithTheRecordsAfterItWhenAsked() throws IOException {
    SiltOptions dropping = SiltFixture.OPTIONS.toBuilder().dropDamagedLogTail(true).build();
    for (int i = 0; i < records.size() - 1; i++) {
      SiltTestFiles.Rec r = records.get(i);
      byte[] hole = newest.clone();
      Arrays.fill(hole, r.offset(), r.end(), (byte) 0);
      CorruptStoreException refused = assertRefused(SiltFixture.NEWEST, hole, "record " + i + " zeroed, by default");
      assertTrue(refused.getMessage().contains("SiltOptions.dropDamagedLogTail"), "record " + i + " zeroed: " + refused.getMessage());
      assertKeeps(hole, i, "record " + i + " zeroed, records after it kept", dropping);
      byte[] flipped = newest.clone();
      flipped[(r.offset() + 4 + r.end()) / 2] ^= 0x21;
      assertKeeps(flipped, i, "record " + i + " with a byte flipped", dropping);
    }
    byte[] frozen = Files.readAllBytes(fixture.logFile(SiltFixture.FROZEN_NEWER));
    frozen[frozen.length - 3] ^= 0x01;
    assertRefused(SiltFixture.FROZEN_NEWER, frozen, "a frozen log's last record torn, with the option", dropping);
  }

  @Test
  void anyDamageToAFrozenLogIsRefused() throws IOException {
    for (int tier : new int[] {SiltFixture.FROZEN_OLDER, SiltFixture.FROZEN_NEWER}) {
      byte[] log = Files.readAllBytes(fixture.logFile(tier));
      List<SiltTestFiles.Rec> frozen = SiltTestFiles.records(log);
      // Cut at every record boundary (only the length the manifest recorded tells these from a
      // whole log), and at every byte of the header, of the first and of the last record.
      SortedSet<Integer> cuts = new TreeSet<>();
      for (int cut = 0; cut <= frozen.get(0).end(); cut++) {
        cuts.add(cut);
      }
      for (SiltTestFiles.Rec r : frozen) {
        cuts.add(r.offset());
      }
      for (int cut = frozen.get(frozen.size() - 1).offset(); cut < log.length; cut++) {
        cuts.add(cut);
      }
      for (int cut : cuts) {
        assertRefused(tier, Arrays.copyOf(log, cut), "frozen log " + tier + " cut at " + cut + " of " + log.length);
      }
      for (int zeros : new int[] {1, 8, 100}) {
        assertRefused(tier, withZeros(log, log.length, zeros), "frozen log " + tier + " followed by " + zeros + " zeros");
      }
      SiltTestFiles.Rec lastFrozen = frozen.get(frozen.size() - 1);
      for (int at = lastFrozen.offset() + 4; at < lastFrozen.end(); at++) {
        byte[] torn = log.clone();
        torn[at] ^= 0x01;
        assertRefused(tier, torn, "frozen log " + tier + ", its last record torn at " + at);
      }
      for (int at = 0; at < SiltLog.HEADER_BYTES; at++) {
        byte[] header = log.clone();
        header[at] ^= 0x40;
        assertRefused(tier, header, "frozen log " + tier + ", header byte " + at);
      }
    }
  }
}
