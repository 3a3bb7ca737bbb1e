package io.varve.silt;

import io.varve.core.files.FileTrees;
import io.varve.core.testing.HostileDirectories;
import io.varve.core.testing.HostileDirectories.Variant;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The hostile SILT stores in {@code hostile/silt}: each is the store {@code hostile/silt-base} (two
 * frozen logs, the newest log and a sorted store) with the files of the variant put over it; its
 * {@code deleted} file lists files and directories to remove, its {@code expect} file a fragment of
 * the {@link io.varve.core.format.CorruptStoreException}'s message that opening it must throw. Each
 * lies in one way: checksums are recomputed wherever the check under test is not the checksum.
 * Regenerate with {@link #main} (which also rebuilds the base) after a deliberate format change.
 * Likewise {@code hostile/silt-v2} over {@code hostile/silt-v2-base}, the same store with the id
 * {@link #V2_ID} (manifest, logs and hash store of version 2): files of the other version, or
 * checked with another store id, and manifests that name another id or sorted store. And {@code
 * hostile/silt-v3} over {@code hostile/silt-v3-base}, of id {@link #V3_ID} with a sync mark
 * (manifest version 3): the newest log shorter than its last sync, or damaged before it, and sync
 * marks missing, damaged, another store's, or naming a log the manifest does not.
 */
final class HostileSiltFiles {
  private HostileSiltFiles() {}

  /** The base store's options: no background merge, so that the directory holds what was written. */
  static final SiltOptions OPTIONS = SiltOptions.builder().logStoreEntries(64).maxLogBytes(64 << 10).backgroundMerges(false).build();

  /** The store id of {@code hostile/silt-v2-base}. */
  static final long V2_ID = 0x5117_BA5E_0000_0002L;
  /** The store id of {@code hostile/silt-v3-base}. */
  static final long V3_ID = 0x5117_BA5E_0000_0003L;

  /** The note of a variant: a fragment of the message that opening it must throw. */
  static final String EXPECT = "expect";

  /** A variant whose opening must throw a message containing {@code expect}. */
  static Variant variant(String expect) {
    return new Variant().note(EXPECT, expect);
  }

  static byte[] key(int i) {
    return ("hostile-key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] value(int i, int round) {
    byte[] value = new byte[(i * 7 + round * 3) % 23];
    Arrays.fill(value, (byte) (i + 31 * round));
    return value;
  }

  /**
   * Writes the base store in {@code dir}, which must not exist: every tier, nine keys in each log. A
   * store of version 1 (id 0), as before store ids, so that its variants stay as they were.
   */
  static void writeBase(Path dir) throws IOException {
    writeBase(dir, 0, false);
  }

  /** {@link #writeBase(Path)} in a store of id {@code storeId}, with a sync mark when {@code syncMark}. */
  static void writeBase(Path dir, long storeId, boolean syncMark) throws IOException {
    try (SiltStore store = SiltStore.open(dir, OPTIONS, () -> storeId, syncMark)) {
      for (int i = 0; i < 12; i++) {
        store.put(key(i), value(i, 0));
      }
      store.freezeLog();
      store.mergeNow();
      // A hash store: keys 20 to 31, some deleted.
      for (int i = 20; i < 32; i++) {
        if (i % 5 == 0) {
          store.delete(key(i - 20));
        } else {
          store.put(key(i), value(i, 0));
        }
      }
      store.freezeLog();
      store.convertNow();
      for (int round = 1; round <= 3; round++) {
        for (int i = round; i < 12 + round; i++) {
          if (i % 4 == round) {
            store.delete(key(i));
          } else {
            store.put(key(i), value(i, round));
          }
        }
        if (round < 3) {
          store.freezeLog();
        }
      }
    }
  }

  /** The base's manifest as the tests read it, from the layout in {@link SiltManifest}'s Javadoc. */
  record Manifest(long next, long sorted, long[] hashes, long[] logs, long[] lengths) {
    static Manifest parse(byte[] m) {
      ByteBuffer b = ByteBuffer.wrap(m);
      int hashCount = b.getInt(24);
      long[] hashes = new long[hashCount];
      for (int i = 0; i < hashCount; i++) {
        hashes[i] = b.getLong(28 + 8 * i);
      }
      int at = 28 + 8 * hashCount;
      int count = b.getInt(at);
      long[] logs = new long[count];
      long[] bytes = new long[count];
      for (int i = 0; i < count; i++) {
        logs[i] = b.getLong(at + 4 + 16 * i);
        bytes[i] = b.getLong(at + 12 + 16 * i);
      }
      return new Manifest(b.getLong(8), b.getLong(16), hashes, logs, bytes);
    }

    /** Where the log count sits. */
    int logCountOffset() {
      return 28 + 8 * hashes.length;
    }

    /** The manifest's bytes, its checksum computed. */
    byte[] bytes() {
      ByteBuffer b = ByteBuffer.allocate(8 + 24 + 8 * hashes.length + 16 * logs.length + 4);
      b.putInt(0x56534C4D).put((byte) 1).put(new byte[3]).putLong(next).putLong(sorted).putInt(hashes.length);
      for (long h : hashes) {
        b.putLong(h);
      }
      b.putInt(logs.length);
      for (int i = 0; i < logs.length; i++) {
        b.putLong(logs[i]).putLong(lengths[i]);
      }
      byte[] m = b.array();
      SiltTestFiles.resealManifest(m);
      return m;
    }

    Manifest with(Consumer<Manifest> edit) {
      Manifest copy = new Manifest(next, sorted, hashes.clone(), logs.clone(), lengths.clone());
      edit.accept(copy);
      return copy;
    }

    Manifest withNext(long n) {
      return new Manifest(n, sorted, hashes, logs, lengths);
    }

    Manifest withSorted(long s) {
      return new Manifest(next, s, hashes, logs, lengths);
    }
  }

  /** Recomputes a hash store's trailer checksum (the footer's last four bytes). */
  private static void resealTrailer(byte[] h, int trailer) {
    SiltTestFiles.putInt(h, h.length - 4, io.varve.core.format.Envelope.crc32c(h, trailer, h.length - 4 - trailer));
  }

  private static byte[] edited(byte[] bytes, Consumer<byte[]> edit) {
    byte[] copy = bytes.clone();
    edit.accept(copy);
    return copy;
  }

  static Map<String, Variant> variants(Path base) throws IOException {
    byte[] manifestBytes = Files.readAllBytes(base.resolve(SiltManifest.FILE));
    Manifest manifest = Manifest.parse(manifestBytes);
    if (!Arrays.equals(manifest.bytes(), manifestBytes) || manifest.logs.length != 3 || manifest.hashes.length != 1) {
      throw new IllegalStateException("the base's manifest is not the one these variants expect");
    }
    String older = SiltManifest.logName(manifest.logs[0]);
    String newer = SiltManifest.logName(manifest.logs[1]);
    String newest = SiltManifest.logName(manifest.logs[2]);
    String sorted = SiltManifest.sortedName(manifest.sorted);
    byte[] olderLog = Files.readAllBytes(base.resolve(older));
    byte[] newerLog = Files.readAllBytes(base.resolve(newer));
    byte[] newestLog = Files.readAllBytes(base.resolve(newest));
    List<SiltTestFiles.Rec> olderRecords = SiltTestFiles.records(olderLog);
    List<SiltTestFiles.Rec> newestRecords = SiltTestFiles.records(newestLog);
    SiltTestFiles.Rec olderFirst = olderRecords.get(0);
    SiltTestFiles.Rec olderSecond = olderRecords.get(1);
    SiltTestFiles.Rec olderLast = olderRecords.get(olderRecords.size() - 1);
    SiltTestFiles.Rec newestFirst = newestRecords.get(0);
    SiltTestFiles.Rec newestLast = newestRecords.get(newestRecords.size() - 1);
    SiltTestFiles.Rec olderPut = olderRecords.stream().filter(r -> r.value() != null && r.value().length > 0).findFirst().orElseThrow();
    if (manifest.sorted >= manifest.logs[1] || olderRecords.size() < 8 || newestRecords.size() < 3 || newestLast.value() == null) {
      throw new IllegalStateException("the base store is too small or numbered otherwise than these variants expect");
    }

    Map<String, Variant> v = new LinkedHashMap<>();
    // --- the manifest ---
    v.put("manifest-bad-magic", variant("magic").with(SiltManifest.FILE, edited(manifestBytes, m -> m[0] ^= 0x20)));
    // Version 2 is read since store ids (2026-11-28), version 3 since sync marks: version 4 is the one not known.
    v.put("manifest-version-4", variant("version 4").with(SiltManifest.FILE, edited(manifestBytes, m -> {
      m[4] = 4;
      SiltTestFiles.resealManifest(m);
    })));
    v.put("manifest-bad-checksum", variant("checksum").with(SiltManifest.FILE, edited(manifestBytes, m -> m[15] ^= 0x01)));
    v.put("manifest-empty", variant("manifest").with(SiltManifest.FILE, new byte[0]));
    v.put("manifest-cut-in-its-header", variant("manifest").with(SiltManifest.FILE, Arrays.copyOf(manifestBytes, 6)));
    v.put("manifest-cut-after-its-header", variant("manifest").with(SiltManifest.FILE, Arrays.copyOf(manifestBytes, 8)));
    v.put("manifest-cut-in-its-counts", variant("manifest").with(SiltManifest.FILE, Arrays.copyOf(manifestBytes, 27)));
    v.put("manifest-cut-in-its-checksum", variant("manifest").with(SiltManifest.FILE, Arrays.copyOf(manifestBytes, manifestBytes.length - 1)));
    v.put("manifest-cut-a-log-short", variant("manifest").with(SiltManifest.FILE, Arrays.copyOf(manifestBytes, manifestBytes.length - 8)));
    v.put("manifest-logs-out-of-order", variant("bad log number").with(SiltManifest.FILE, manifest.with(m -> {
      long log = m.logs[0];
      m.logs[0] = m.logs[1];
      m.logs[1] = log;
    }).bytes()));
    v.put("manifest-log-named-twice", variant("bad log number").with(SiltManifest.FILE, manifest.with(m -> m.logs[1] = m.logs[0]).bytes()));
    v.put("manifest-log-at-next-number", variant("bad log number").with(SiltManifest.FILE, manifest.with(m -> m.logs[2] = m.next).bytes()));
    v.put("manifest-log-past-next-number", variant("bad log number").with(SiltManifest.FILE, manifest.with(m -> m.logs[2] = Long.MAX_VALUE).bytes()));
    v.put("manifest-log-number-negative", variant("bad log number").with(SiltManifest.FILE, manifest.with(m -> m.logs[0] = -2).bytes()));
    v.put("manifest-log-is-the-sorted-store", variant("bad log number").with(SiltManifest.FILE, manifest.with(m -> m.logs[0] = m.sorted).bytes()));
    v.put("manifest-zero-logs", variant("lists 0 logs").with(SiltManifest.FILE, new Manifest(manifest.next, manifest.sorted, manifest.hashes, new long[0], new long[0]).bytes()));
    v.put("manifest-huge-log-count", variant("lists 2147483647 logs").with(SiltManifest.FILE, edited(manifestBytes, m -> {
      SiltTestFiles.putInt(m, manifest.logCountOffset(), Integer.MAX_VALUE);
      SiltTestFiles.resealManifest(m);
    })));
    v.put("manifest-negative-log-count", variant("lists -3 logs").with(SiltManifest.FILE, edited(manifestBytes, m -> {
      SiltTestFiles.putInt(m, manifest.logCountOffset(), -3);
      SiltTestFiles.resealManifest(m);
    })));
    v.put("manifest-log-count-one-more", variant("lists 4 logs").with(SiltManifest.FILE, edited(manifestBytes, m -> {
      SiltTestFiles.putInt(m, manifest.logCountOffset(), 4);
      SiltTestFiles.resealManifest(m);
    })));
    v.put("manifest-sorted-at-next-number", variant("bad sorted store number").with(SiltManifest.FILE, manifest.withSorted(manifest.next).bytes()));
    v.put("manifest-sorted-negative", variant("bad sorted store number").with(SiltManifest.FILE, manifest.withSorted(-1).bytes()));
    v.put("manifest-frozen-log-length-short", variant("bad length").with(SiltManifest.FILE, manifest.with(m -> m.lengths[0] = 23).bytes()));
    v.put("manifest-frozen-log-length-huge", variant("bad length").with(SiltManifest.FILE, manifest.with(m -> m.lengths[1] = 1L << 40).bytes()));
    v.put("manifest-newest-log-with-a-length", variant("bad length").with(SiltManifest.FILE, manifest.with(m -> m.lengths[2] = newestLog.length).bytes()));
    v.put("manifest-frozen-log-length-one-more", variant("where the manifest recorded").with(SiltManifest.FILE, manifest.with(m -> m.lengths[0]++).bytes()));
    v.put("manifest-frozen-log-length-a-record-more", variant("where the manifest recorded")
        .with(SiltManifest.FILE, manifest.with(m -> m.lengths[1] += olderFirst.end() - olderFirst.offset()).bytes()));
    v.put("manifest-names-a-missing-log", variant("missing").with(SiltManifest.FILE, manifest.withNext(manifest.next + 5).with(m -> m.logs[2] = manifest.next + 3).bytes()));
    v.put("manifest-names-a-missing-sorted-store", variant("missing").with(SiltManifest.FILE, manifest.withNext(manifest.next + 5).withSorted(manifest.next + 1).bytes()));
    v.put("manifest-missing", variant("no manifest").with(SiltManifest.FILE, null));
    v.put("manifest-missing-temporary-left", variant("no manifest").with(SiltManifest.FILE, null).with(SiltManifest.FILE + ".tmp", manifestBytes));
    v.put("manifest-hash-store-named-twice", variant("bad hash store number").with(SiltManifest.FILE,
        new Manifest(manifest.next, manifest.sorted, new long[] {manifest.hashes[0], manifest.hashes[0]}, manifest.logs, manifest.lengths).bytes()));
    v.put("manifest-hash-store-is-a-log", variant("bad log number").with(SiltManifest.FILE, manifest.with(m -> m.hashes[0] = m.logs[0]).bytes()));
    v.put("manifest-hash-store-at-next-number", variant("bad hash store number").with(SiltManifest.FILE, manifest.with(m -> m.hashes[0] = m.next).bytes()));
    v.put("manifest-huge-hash-count", variant("lists 2147483647 hash stores").with(SiltManifest.FILE, edited(manifestBytes, m -> {
      SiltTestFiles.putInt(m, 24, Integer.MAX_VALUE);
      SiltTestFiles.resealManifest(m);
    })));
    v.put("manifest-names-a-missing-hash-store", variant("missing").with(SiltManifest.FILE,
        manifest.withNext(manifest.next + 5).with(m -> m.hashes[0] = manifest.next + 3).bytes()));
    // --- a hash store ---
    String hash = SiltManifest.hashName(manifest.hashes[0]);
    byte[] hashBytes = Files.readAllBytes(base.resolve(hash));
    int trailer = (int) ByteBuffer.wrap(hashBytes).getLong(hashBytes.length - 12);
    int hashBuckets = ByteBuffer.wrap(hashBytes).getInt(16);
    int startsAt = trailer + 2 * (4 * hashBuckets + 1);
    v.put("hash-store-missing", variant("missing").with(hash, null));
    v.put("hash-store-bad-magic", variant("magic").with(hash, edited(hashBytes, h -> h[0] ^= 0x01)));
    v.put("hash-store-header-damaged", variant("header is damaged").with(hash, edited(hashBytes, h -> h[9] ^= 0x10)));
    v.put("hash-store-number-not-the-manifests", variant("hash store number").with(hash, edited(hashBytes, h -> {
      SiltTestFiles.putLong(h, 8, manifest.hashes[0] + 1);
      SiltTestFiles.putInt(h, 20, io.varve.core.format.Envelope.crc32c(h, 0, 20));
    })));
    v.put("hash-store-table-size-not-a-power-of-two", variant("bad table size").with(hash, edited(hashBytes, h -> {
      SiltTestFiles.putInt(h, 16, 3);
      SiltTestFiles.putInt(h, 20, io.varve.core.format.Envelope.crc32c(h, 0, 20));
    })));
    v.put("hash-store-table-size-other", variant("does not end where the file does").with(hash, edited(hashBytes, h -> {
      SiltTestFiles.putInt(h, 16, hashBuckets * 2);
      SiltTestFiles.putInt(h, 20, io.varve.core.format.Envelope.crc32c(h, 0, 20));
    })));
    v.put("hash-store-empty", variant("hash store of 0 bytes").with(hash, new byte[0]));
    v.put("hash-store-cut-short", variant("does not end where the file does").with(hash, Arrays.copyOf(hashBytes, hashBytes.length - 1)));
    v.put("hash-store-trailer-offset-wrong", variant("does not end where the file does").with(hash, edited(hashBytes, h ->
        SiltTestFiles.putLong(h, h.length - 12, trailer - 8))));
    v.put("hash-store-trailer-damaged", variant("trailer is damaged").with(hash, edited(hashBytes, h -> h[trailer + 1] ^= 0x02)));
    v.put("hash-store-bucket-starts-falling", variant("starts at").with(hash, edited(hashBytes, h -> {
      SiltTestFiles.putLong(h, startsAt + 8, 2000);
      resealTrailer(h, trailer);
    })));
    v.put("hash-store-first-bucket-not-after-the-header", variant("starts at").with(hash, edited(hashBytes, h -> {
      SiltTestFiles.putLong(h, startsAt, 0);
      resealTrailer(h, trailer);
    })));
    v.put("hash-store-entries-not-ending-at-the-trailer", variant("starts at").with(hash, edited(hashBytes, h -> {
      SiltTestFiles.putLong(h, startsAt + 8 * (hashBuckets + 1), trailer - 1);
      resealTrailer(h, trailer);
    })));
    v.put("hash-store-a-bucket-too-short-for-its-tags", variant("too short for its entries").with(hash, edited(hashBytes, h -> {
      // Every tag set: bucket 0 must hold four entries in the bytes it has.
      for (int slot = 0; slot < 4; slot++) {
        h[trailer + 2 * slot] = (byte) 0x80;
        h[trailer + 2 * slot + 1] = 1;
      }
      SiltTestFiles.putLong(h, startsAt + 8, 24 + 20);
      resealTrailer(h, trailer);
    })));
    // --- the files the manifest names ---
    v.put("log-missing", variant("missing").with(older, null));
    v.put("newest-log-missing", variant("missing").with(newest, null));
    v.put("sorted-store-missing", variant("missing").with(sorted, null));
    v.put("logs-swapped", variant("log number").with(older, newerLog).with(newer, olderLog));
    // --- a log's header ---
    v.put("log-bad-magic", variant("magic").with(older, edited(olderLog, l -> l[1] ^= 0x01)));
    v.put("log-version-2", variant("version 2").with(older, edited(olderLog, l -> {
      l[4] = 2; // a version-2 log under a version-1 manifest: another store's, refused
      SiltTestFiles.putInt(l, 20, io.varve.core.format.Envelope.crc32c(l, 0, 20));
    })));
    v.put("log-header-checksum", variant("header is damaged").with(older, edited(olderLog, l -> l[12] ^= 0x08)));
    v.put("log-header-cut-short", variant("cut short").with(older, Arrays.copyOf(olderLog, 10)));
    v.put("log-empty", variant("cut short").with(newest, new byte[0]));
    v.put("log-number-not-the-manifests", variant("log number").with(older, edited(olderLog, l -> {
      SiltTestFiles.putLong(l, 8, manifest.logs[0] + 1);
      SiltTestFiles.resealHeader(l);
    })));
    for (int buckets : new int[] {0, 3, -8, 1 << 29}) {
      v.put("log-table-size-" + (buckets < 0 ? "negative" : buckets == 3 ? "not-a-power-of-two" : buckets == 0 ? "zero" : "huge"),
          variant("bad table size").with(newest, edited(newestLog, l -> {
            SiltTestFiles.putInt(l, 16, buckets);
            SiltTestFiles.resealHeader(l);
          })));
    }
    v.put("log-table-too-small-for-its-records", variant("table fills").with(older, edited(olderLog, l -> {
      SiltTestFiles.putInt(l, 16, 1);
      SiltTestFiles.resealHeader(l);
    })));
    // --- a log's records ---
    v.put("frozen-record-length-negative", variant("a record of -5 bytes").with(older, edited(olderLog, l -> SiltTestFiles.putInt(l, olderSecond.offset(), -5))));
    v.put("frozen-record-length-huge", variant("a record cut short").with(older, edited(olderLog, l -> SiltTestFiles.putInt(l, olderSecond.offset(), 0x7FFF_FFF0))));
    v.put("frozen-record-length-zero", variant("a record of 0 bytes").with(older, edited(olderLog, l -> SiltTestFiles.putInt(l, olderSecond.offset(), 0))));
    v.put("newest-record-length-negative", variant("a record of -1 bytes").with(newest, edited(newestLog, l -> SiltTestFiles.putInt(l, newestFirst.offset(), -1))));
    v.put("newest-record-length-one", variant("a record of 1 bytes").with(newest, edited(newestLog, l -> SiltTestFiles.putInt(l, newestFirst.offset(), 1))));
    v.put("newest-record-length-zero-before-records", variant("a record of 0 bytes").with(newest, edited(newestLog, l -> SiltTestFiles.putInt(l, newestFirst.offset(), 0))));
    v.put("frozen-record-key-length-varint-endless", variant("malformed").with(older, edited(olderLog, l -> {
      Arrays.fill(l, olderSecond.body() + 1, olderSecond.end(), (byte) 0x80);
      SiltTestFiles.resealRecord(l, olderSecond.offset());
    })));
    v.put("frozen-record-key-length-varint-too-big", variant("malformed").with(older, edited(olderLog, l -> {
      Arrays.fill(l, olderSecond.body() + 1, olderSecond.body() + 5, (byte) 0xFF);
      l[olderSecond.body() + 5] = 0x0F; // 2^32 - 1
      SiltTestFiles.resealRecord(l, olderSecond.offset());
    })));
    v.put("frozen-record-key-past-the-body", variant("malformed").with(older, edited(olderLog, l -> {
      l[olderSecond.body() + 1] = 0x7F;
      SiltTestFiles.resealRecord(l, olderSecond.offset());
    })));
    v.put("frozen-record-unknown-kind", variant("malformed").with(older, edited(olderLog, l -> {
      l[olderSecond.body()] = 3;
      SiltTestFiles.resealRecord(l, olderSecond.offset());
    })));
    v.put("frozen-delete-with-trailing-bytes", variant("malformed").with(older, edited(olderLog, l -> {
      l[olderPut.body()] = SiltLog.DELETE;
      SiltTestFiles.resealRecord(l, olderPut.offset());
    })));
    v.put("frozen-record-checksum-fails", variant("checksum fails").with(older, edited(olderLog, l -> l[olderSecond.body() + 2] ^= 0x04)));
    v.put("frozen-last-record-torn", variant("checksum fails").with(older, edited(olderLog, l -> l[olderLast.end() - 1] ^= 0x04)));
    v.put("frozen-last-record-cut-short", variant("cut short").with(older, Arrays.copyOf(olderLog, olderLast.end() - 1)));
    v.put("frozen-log-cut-at-a-record-boundary", variant("where the manifest recorded").with(older, Arrays.copyOf(olderLog, olderLast.offset())));
    v.put("frozen-log-followed-by-zeros", variant("a record of 0 bytes").with(older, Arrays.copyOf(olderLog, olderLog.length + 16)));
    v.put("newest-record-unknown-kind-before-records", variant("malformed").with(newest, edited(newestLog, l -> {
      l[newestFirst.body()] = 0;
      SiltTestFiles.resealRecord(l, newestFirst.offset());
    })));
    v.put("newest-last-record-unknown-kind", variant("malformed").with(newest, edited(newestLog, l -> {
      l[newestLast.body()] = 9;
      SiltTestFiles.resealRecord(l, newestLast.offset());
    })));
    v.put("newest-last-record-delete-with-trailing-bytes", variant("malformed").with(newest, edited(newestLog, l -> {
      l[newestLast.body()] = SiltLog.DELETE;
      SiltTestFiles.resealRecord(l, newestLast.offset());
    })));
    v.put("newest-record-checksum-fails-before-records", variant("checksum fails").with(newest, edited(newestLog, l -> l[newestFirst.end() - 1] ^= 0x40)));
    return v;
  }

  /** CRC32C of {@code bytes[from, from + length)} preceded by the store id {@code id} (the layout's Check, version 2). */
  static int salted(byte[] bytes, int from, int length, long id) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(ByteBuffer.allocate(8).putLong(id).array());
    crc.update(bytes, from, length);
    return (int) crc.getValue();
  }

  /** The variants of the version-2 base: each lies about the store's identity, or its version. */
  static Map<String, Variant> v2Variants(Path base) throws IOException {
    byte[] manifestBytes = Files.readAllBytes(base.resolve(SiltManifest.FILE));
    ByteBuffer m = ByteBuffer.wrap(manifestBytes);
    if (manifestBytes[4] != 2 || m.getLong(8) != V2_ID || m.getInt(36) != 1 || m.getInt(48) != 3) {
      throw new IllegalStateException("the v2 base's manifest is not the one these variants expect");
    }
    long other = V2_ID ^ 0x0100_0000_0000_0001L;
    String hash = SiltManifest.hashName(m.getLong(40));
    String older = SiltManifest.logName(m.getLong(52));
    String newest = SiltManifest.logName(m.getLong(52 + 32));
    byte[] hashBytes = Files.readAllBytes(base.resolve(hash));
    byte[] olderLog = Files.readAllBytes(base.resolve(older));
    byte[] newestLog = Files.readAllBytes(base.resolve(newest));
    int olderSecond = SiltLog.HEADER_BYTES + SiltLog.RECORD_HEADER_BYTES + SiltTestFiles.getInt(olderLog, SiltLog.HEADER_BYTES);
    int trailer = (int) ByteBuffer.wrap(hashBytes).getLong(hashBytes.length - 12);

    Map<String, Variant> v = new LinkedHashMap<>();
    // --- the manifest ---
    v.put("manifest-store-id-zero", variant("store id 0").with(SiltManifest.FILE, edited(manifestBytes, b -> {
      SiltTestFiles.putLong(b, 8, 0);
      SiltTestFiles.resealManifest(b);
    })));
    v.put("manifest-store-id-another", variant("another store's").with(SiltManifest.FILE, edited(manifestBytes, b -> {
      SiltTestFiles.putLong(b, 8, other);
      SiltTestFiles.resealManifest(b);
    })));
    v.put("manifest-sorted-meta-another", variant("where the manifest records").with(SiltManifest.FILE, edited(manifestBytes, b -> {
      b[19] ^= 0x01;
      SiltTestFiles.resealManifest(b);
    })));
    byte[] version1 = new byte[manifestBytes.length - 12];
    System.arraycopy(manifestBytes, 0, version1, 0, 8);
    System.arraycopy(manifestBytes, 20, version1, 8, manifestBytes.length - 20);
    version1[4] = 1;
    SiltTestFiles.resealManifest(version1);
    v.put("manifest-version-1-over-version-2-files", variant("calls for version 1").with(SiltManifest.FILE, version1));
    // --- a log ---
    v.put("log-version-1", variant("calls for version 2").with(older, edited(olderLog, l -> {
      l[4] = 1;
      SiltTestFiles.putInt(l, 20, io.varve.core.format.Envelope.crc32c(l, 0, 20));
    })));
    v.put("log-header-of-another-store", variant("another store's").with(older, edited(olderLog, l -> SiltTestFiles.putInt(l, 20, salted(l, 0, 20, other)))));
    v.put("newest-log-header-of-another-store", variant("another store's").with(newest, edited(newestLog, l -> SiltTestFiles.putInt(l, 20, salted(l, 0, 20, other)))));
    v.put("frozen-record-of-another-store", variant("checksum fails").with(older, edited(olderLog, l -> {
      int length = SiltTestFiles.getInt(l, olderSecond);
      SiltTestFiles.putInt(l, olderSecond + 4, salted(l, olderSecond + SiltLog.RECORD_HEADER_BYTES, length, other));
    })));
    v.put("newest-record-of-another-store-before-records", variant("checksum fails").with(newest, edited(newestLog, l -> {
      int length = SiltTestFiles.getInt(l, SiltLog.HEADER_BYTES);
      SiltTestFiles.putInt(l, SiltLog.HEADER_BYTES + 4, salted(l, SiltLog.HEADER_BYTES + SiltLog.RECORD_HEADER_BYTES, length, other));
    })));
    // --- the hash store ---
    v.put("hash-store-version-1", variant("calls for version 2").with(hash, edited(hashBytes, h -> {
      h[4] = 1;
      SiltTestFiles.putInt(h, 20, io.varve.core.format.Envelope.crc32c(h, 0, 20));
    })));
    v.put("hash-store-header-of-another-store", variant("another store's").with(hash, edited(hashBytes, h -> SiltTestFiles.putInt(h, 20, salted(h, 0, 20, other)))));
    v.put("hash-store-trailer-of-another-store", variant("trailer is damaged, or another store's").with(hash, edited(hashBytes,
        h -> SiltTestFiles.putInt(h, h.length - 4, salted(h, trailer, h.length - 4 - trailer, other)))));
    return v;
  }

  /** A sync mark slot of generation {@code generation}, from the layout in {@link SiltSyncMark}'s Javadoc, checked with {@code id}. */
  static byte[] markSlot(long generation, long logNumber, long bytes, long id) {
    byte[] slot = ByteBuffer.allocate(36).putInt(0x56534C53).put((byte) 1).put(new byte[3])
        .putLong(generation).putLong(logNumber).putLong(bytes).array();
    SiltTestFiles.putInt(slot, 32, salted(slot, 0, 32, id));
    return slot;
  }

  /** A sync mark file whose two slots are {@code slot0} and {@code slot1}. */
  static byte[] markFile(byte[] slot0, byte[] slot1) {
    byte[] mark = new byte[4096 + 36];
    System.arraycopy(slot0, 0, mark, 0, 36);
    System.arraycopy(slot1, 0, mark, 4096, 36);
    return mark;
  }

  /** The variants of the version-3 base: a newest log shorter than its last sync, or sync marks that lie. */
  static Map<String, Variant> v3Variants(Path base) throws IOException {
    SiltManifest manifest = SiltManifest.read(base);
    byte[] mark = Files.readAllBytes(base.resolve(SiltSyncMark.FILE));
    ByteBuffer m = ByteBuffer.wrap(mark);
    long newestNumber = manifest.logNumbers().get(manifest.logNumbers().size() - 1);
    String newest = SiltManifest.logName(newestNumber);
    byte[] newestLog = Files.readAllBytes(base.resolve(newest));
    // The close's mark (generation 2, slot 0) says the newest log is synced to its end.
    if (manifest.version() != 3 || manifest.storeId() != V3_ID || mark.length != 4096 + 36 || m.getLong(8) != 2
        || m.getLong(16) != newestNumber || m.getLong(24) != newestLog.length) {
      throw new IllegalStateException("the v3 base's sync mark is not the one these variants expect");
    }
    List<SiltTestFiles.Rec> records = SiltTestFiles.records(newestLog, V3_ID);
    SiltTestFiles.Rec last = records.get(records.size() - 1);
    long other = V3_ID ^ 0x0100_0000_0000_0001L;
    Map<String, Variant> v = new LinkedHashMap<>();
    // --- the newest log, shorter than its last sync or damaged before it: no crash leaves that ---
    v.put("newest-log-an-older-copy", variant("shorter than its last sync").with(newest, Arrays.copyOf(newestLog, last.offset())));
    v.put("newest-log-cut-in-its-last-record", variant("shorter than its last sync").with(newest, Arrays.copyOf(newestLog, last.end() - 1)));
    v.put("newest-log-header-only", variant("shorter than its last sync").with(newest, Arrays.copyOf(newestLog, SiltLog.HEADER_BYTES)));
    v.put("newest-last-record-torn-within-the-sync", variant("its last sync reached").with(newest, edited(newestLog, l -> l[last.end() - 1] ^= 0x10)));
    v.put("newest-last-record-length-past-the-end-within-the-sync", variant("its last sync reached").with(newest, edited(newestLog,
        l -> SiltTestFiles.putInt(l, last.offset(), last.length() + 1))));
    // --- the sync mark ---
    v.put("sync-mark-missing", variant("missing").with(SiltSyncMark.FILE, null));
    v.put("sync-mark-empty", variant("a sync mark of 0 bytes").with(SiltSyncMark.FILE, new byte[0]));
    v.put("sync-mark-cut-short", variant("a sync mark of 4131 bytes").with(SiltSyncMark.FILE, Arrays.copyOf(mark, mark.length - 1)));
    v.put("sync-mark-both-slots-damaged", variant("neither slot").with(SiltSyncMark.FILE, edited(mark, b -> {
      b[20] ^= 0x01;
      b[4096 + 20] ^= 0x01;
    })));
    v.put("sync-mark-of-another-store", variant("another store's").with(SiltSyncMark.FILE,
        markFile(markSlot(2, newestNumber, newestLog.length, other), markSlot(1, newestNumber, newestLog.length, other))));
    v.put("sync-mark-of-a-log-newer-than-the-manifests", variant("newer than the newest log").with(SiltSyncMark.FILE,
        markFile(markSlot(2, manifest.nextNumber(), SiltLog.HEADER_BYTES, V3_ID), markSlot(1, manifest.nextNumber(), SiltLog.HEADER_BYTES, V3_ID))));
    v.put("sync-mark-length-huge", variant("bad synced length").with(SiltSyncMark.FILE,
        markFile(markSlot(4, newestNumber, 1L << 40, V3_ID), markSlot(3, newestNumber, newestLog.length, V3_ID))));
    v.put("sync-mark-length-below-a-header", variant("bad synced length").with(SiltSyncMark.FILE,
        markFile(markSlot(4, newestNumber, 0, V3_ID), markSlot(3, newestNumber, newestLog.length, V3_ID))));
    v.put("sync-mark-a-byte-past-the-log", variant("shorter than its last sync").with(SiltSyncMark.FILE,
        markFile(markSlot(4, newestNumber, newestLog.length + 1, V3_ID), markSlot(3, newestNumber, newestLog.length, V3_ID))));
    return v;
  }

  /**
   * Writes {@code args[0]}/silt-base and {@code args[0]}/silt (e.g. silt/src/test/resources/hostile),
   * replacing them; with {@code args[1]} = {@code v2} or {@code v3}, {@code silt-v2-base} and
   * {@code silt-v2} (or v3) instead; with {@code args[2]} = {@code variants}, only the variants,
   * over the base there.
   */
  public static void main(String[] args) throws IOException {
    Path root = Path.of(args[0]);
    String version = args.length > 1 ? args[1] : "v1";
    String suffix = version.equals("v1") ? "" : "-" + version;
    Path base = root.resolve("silt" + suffix + "-base");
    if (!(args.length > 2 && args[2].equals("variants"))) {
      FileTrees.deleteTree(base);
      writeBase(base, version.equals("v1") ? 0 : version.equals("v2") ? V2_ID : V3_ID, version.equals("v3"));
      Files.deleteIfExists(base.resolve(SiltManifest.LOCK_FILE));
    }
    HostileDirectories.write(root.resolve("silt" + suffix),
        version.equals("v1") ? variants(base) : version.equals("v2") ? v2Variants(base) : v3Variants(base));
  }
}
