package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.core.files.FileTrees;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damages one file of a small closed SILT store (every tier: a sorted store, two frozen logs, the
 * newest log): one byte changed, each in turn, in each log and in the manifest, and each file cut
 * at every length. Opening then fails with a {@link CorruptStoreException}, or the store answers
 * every key with its exact value (from a {@link java.util.HashMap} of what was written) or a
 * {@link CorruptStoreException}: never a wrong value, never null for a key it holds.
 *
 * <p>The exceptions, where the store may hold less than was written and must hold exactly a prefix
 * of the newest log's records:
 *
 * <ul>
 *   <li>The newest log cut at any length: that is what a crash leaves, and nothing records how far
 *       the newest log had grown (only syncs make its writes durable, and the manifest is not
 *       written at a sync). It keeps the records wholly before the cut.
 *   <li>A changed byte in the newest log's last record: a crash can tear the last record (its
 *       length whole, its checksum failing), so it is dropped as a torn tail, losing that one
 *       write, which no sync had covered if the crash tore it.
 *   <li>A changed byte in the length of a newest-log record that makes it claim to run past the end
 *       of the file: the length has no checksum of its own, so such a record cannot be told from
 *       the last record cut short by a crash. It is dropped with every record after it (a limit of
 *       the log format, not of the code).
 * </ul>
 */
class SiltDamageTest {
  @TempDir Path temp;

  /** What a damaged store must do when it opens. */
  private enum Expect {
    /** Refused at open: the damage is covered by a checksum or a recorded length. */
    REFUSED,
    /** Refused at open, or every key's value exact or a CorruptStoreException. */
    EXACT_OR_REPORTED,
    /** Opens, keeping exactly the newest log's first {@code kept} records (a crash's cut). */
    PREFIX,
    /** Refused at open, or opens keeping exactly the newest log's first {@code kept} records. */
    REFUSED_OR_PREFIX
  }

  private SiltFixture fixture;
  private Path work;
  private final String[] names = new String[4];
  private final byte[][] pristine = new byte[4][];
  private int refused;
  private int prefixes;
  private int exact;
  private int reportedByGet;

  @Test
  void damageIsReportedNeverServed() throws IOException {
    long seed = Long.getLong("varve.silt.damage.seed", 0x5117_DA3AL);
    System.out.println("SiltDamageTest seed " + seed);
    Random random = new Random(seed);
    fixture = SiltFixture.build(temp.resolve("pristine"), random.nextLong(), 12);
    work = temp.resolve("work");
    FileTrees.copyTree(fixture.dir, work);
    names[0] = SiltManifest.FILE;
    for (int tier = SiltFixture.FROZEN_OLDER; tier <= SiltFixture.NEWEST; tier++) {
      names[tier] = SiltManifest.logName(fixture.logNumbers[tier]);
    }
    for (int f = 0; f < 4; f++) {
      pristine[f] = Files.readAllBytes(work.resolve(names[f]));
    }
    int cases = 0;
    for (int f = 0; f < 4; f++) {
      byte[] bytes = pristine[f];
      boolean[] structural = structuralBytes(f);
      for (int at = 0; at < bytes.length; at++) {
        // Every byte the format interprets; a quarter of the others (key and value bytes).
        if (!structural[at] && random.nextInt(4) != 0) {
          continue;
        }
        byte[] damaged = bytes.clone();
        damaged[at] ^= (byte) (1 + random.nextInt(255));
        check(f, damaged, "byte " + at + " of " + names[f] + " changed to " + (damaged[at] & 0xFF));
        cases++;
      }
      for (int length = 0; length < bytes.length; length++) {
        if (!structural[length] && random.nextInt(4) != 0) {
          continue;
        }
        check(f, Arrays.copyOf(bytes, length), names[f] + " cut at " + length + " of " + bytes.length);
        cases++;
      }
    }
    System.out.println("SiltDamageTest: " + cases + " damaged stores: " + refused + " refused on open, " + prefixes
        + " kept a prefix of the newest log, " + exact + " answered every key exactly, " + reportedByGet + " reported by a lookup");
    assertTrue(refused > cases / 2 && prefixes > 0, "the damage never reached a checked structure");
  }

  /** Bytes of file {@code f} that the format interprets: headers, record headers, kinds, key lengths, the manifest. */
  private boolean[] structuralBytes(int f) {
    boolean[] structural = new boolean[pristine[f].length];
    if (f == 0) {
      Arrays.fill(structural, true);
      return structural;
    }
    Arrays.fill(structural, 0, SiltLog.HEADER_BYTES, true);
    for (SiltTestFiles.Rec r : SiltTestFiles.records(pristine[f])) {
      Arrays.fill(structural, r.offset(), Math.min(r.end(), r.body() + 3), true);
    }
    structural[structural.length - 1] = true;
    return structural;
  }

  private void check(int f, byte[] damaged, String damage) throws IOException {
    List<SiltTestFiles.Rec> records = SiltTestFiles.records(pristine[SiltFixture.NEWEST]);
    int all = records.size();
    Expect expect;
    int kept = all;
    if (f == 0) {
      expect = Expect.REFUSED; // the manifest's checksum covers every byte of it
    } else if (f != SiltFixture.NEWEST) {
      expect = Expect.EXACT_OR_REPORTED;
    } else if (damaged.length < pristine[f].length) {
      expect = damaged.length < SiltLog.HEADER_BYTES ? Expect.REFUSED : Expect.PREFIX;
      kept = 0;
      while (kept < all && records.get(kept).end() <= damaged.length) {
        kept++;
      }
    } else {
      expect = Expect.EXACT_OR_REPORTED;
      int at = firstDifference(pristine[f], damaged);
      for (int i = 0; i < all; i++) {
        SiltTestFiles.Rec r = records.get(i);
        if (at < r.offset() || at >= r.end()) {
          continue;
        }
        int length = SiltTestFiles.getInt(damaged, r.offset());
        if (i == all - 1) {
          expect = Expect.REFUSED_OR_PREFIX; // a torn last record
          kept = all - 1;
        } else if (at < r.offset() + 4 && (length > damaged.length - r.body() || length >= 2 && zerosFrom(damaged, r.body() + length))) {
          // Reads as a record cut short, or as a torn last record followed by unwritten zeros
          // (a value of zeros ends the log here): the format cannot tell either from a crash.
          expect = Expect.REFUSED_OR_PREFIX;
          kept = i;
        }
      }
    }
    for (int g = 0; g < 4; g++) {
      Files.write(work.resolve(names[g]), g == f ? damaged : pristine[g]);
    }
    // An open that took writes synced them, and its mark with them: the next case starts from the fixture's.
    Files.copy(fixture.dir.resolve(SiltSyncMark.FILE), work.resolve(SiltSyncMark.FILE), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    SiltStore store;
    try {
      store = SiltTestFiles.open(work, SiltFixture.OPTIONS);
    } catch (CorruptStoreException e) {
      if (expect == Expect.PREFIX) {
        fail(damage + ": a cut the newest log can get in a crash was refused", e);
      }
      refused++;
      return;
    }
    try (store) {
      if (expect == Expect.REFUSED) {
        fail(damage + ": opened");
      }
      Map<ByteBuffer, byte[]> model = fixture.expected(SiltFixture.NEWEST, kept);
      if (expect == Expect.PREFIX || expect == Expect.REFUSED_OR_PREFIX) {
        fixture.check(store, model, damage + ": the newest log's first " + kept + " records");
        prefixes++;
        return;
      }
      assertEquals(all, kept);
      boolean reported = false;
      for (byte[] key : fixture.keys) {
        byte[] value;
        try {
          value = store.get(key);
        } catch (CorruptStoreException e) {
          reported = true;
          continue;
        }
        byte[] expected = model.get(ByteBuffer.wrap(key));
        if (expected == null) {
          assertNull(value, damage);
        } else {
          assertArrayEquals(expected, value, damage);
        }
      }
      if (reported) {
        reportedByGet++;
      } else {
        exact++;
      }
    }
  }

  private static boolean zerosFrom(byte[] bytes, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static int firstDifference(byte[] a, byte[] b) {
    int at = Arrays.mismatch(a, b);
    if (at < 0) {
      throw new IllegalArgumentException("no damage");
    }
    return at;
  }
}
