package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.builder.StoreBuilder;
import io.varve.core.ect.EctParameters;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import io.varve.core.hash.KeyHasher;
import io.varve.core.index.IndexKind;
import io.varve.core.index.IndexParameters;
import io.varve.core.index.RankIndex;
import io.varve.core.store.IndexFile;
import io.varve.core.store.RecordFormat;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;
import io.varve.core.testing.TestRecords;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/**
 * Damages the files of small stores in every way we can think of and checks the contract of
 * {@link Store}: a damaged or hostile store yields {@link CorruptStoreException} (or {@link
 * NoSuchFileException} for a missing file), on open, on a lookup or from {@link Store#verify()};
 * never another exception type, and never another key's record.
 *
 * <p>Two kinds of damage are distinguished. <em>Corruption</em> (truncation, bit flips, replaced
 * headers, appended bytes, deletion) leaves checksums wrong: open must reject it, except damage to
 * the data file's payload, whose checksum open does not read; then a lookup may return damaged
 * value bytes of the damaged record but never another key's value, and {@code verify()} must
 * throw. <em>Lies</em> are hostile files whose checksums are all recomputed (file footers, the
 * checksums the meta file records, the index's own checksum), so that only structure checks can
 * catch them; then open must reject them or lookups and {@code verify()} must stay within the
 * contract, and {@code verify()} may pass only if every lookup was right (except for lies in the
 * data payload itself, which make a different but valid store).
 */
class StoreCorruptionTest {
  private static final long VARIABLE_SEED = 0xC0_77_0B_7EL;
  private static final long FIXED_SEED = 0xF1_7E_D5_17EL;
  private static final long DAMAGE_SEED = 0xDA_3A_6EL;
  private static final int RECORDS = 300;
  private static final int ABSENT_KEYS = 200;
  /** Files up to this size get a bit flip at every byte; larger ones at random positions. */
  private static final int SMALL_FILE = 4096;
  private static final int RANDOM_FLIPS = 200;
  /** Hostile (checksum-fixed) flips of the data payload per store. */
  private static final int RANDOM_DATA_LIES = 120;
  /** Random tails per index in {@link #garbageAtTheEndOfTheTrie}. */
  private static final int TRIE_TAILS = 150;

  private static Fixture variable;
  private static Fixture fixed;
  private static final Map<String, AtomicLong> COUNTS = new TreeMap<>();

  @TempDir Path temp;

  // ---------------------------------------------------------------------------------------------
  // Fixtures

  /**
   * An intact store: its files' bytes, its records in hash order with their payload offsets
   * ({@code starts[n]} is the payload length; padding may lie between a record's end and the next
   * start), and where the meta payload holds {@code dataBytes} and {@code createdMillis}.
   */
  record Fixture(
      String name,
      Map<String, byte[]> files,
      byte[][] keys,
      byte[][] values,
      long[] starts,
      long[] ends,
      List<byte[]> absent,
      boolean fixedSize,
      int metaDataBytesAt,
      int metaCreatedAt,
      boolean blockedIndex,
      int checkBytes) {
    int n() {
      return keys.length;
    }

    int metaKeyModeAt() {
      return metaKnobsEnd(blockedIndex);
    }

    int metaKeyLengthAt() {
      return metaKnobsEnd(blockedIndex) + 1;
    }

    int metaValueLengthAt() {
      return metaKnobsEnd(blockedIndex) + 5;
    }

    long dataBytes() {
      return starts[keys.length];
    }

    /** The records overlapping payload bytes [from, to) of the data file. */
    LongPredicate recordsOverlapping(long from, long to) {
      Set<Long> ranks = new HashSet<>();
      for (int r = 0; r < n(); r++) {
        long start = starts[r];
        long end = Math.max(ends[r], start + 1);
        if (start < to && from < end) {
          ranks.add((long) r);
        }
      }
      return ranks::contains;
    }
  }

  @BeforeAll
  static void buildStores(@TempDir Path dir) throws IOException {
    System.out.println("StoreCorruptionTest: variable-size seed=" + VARIABLE_SEED + ", fixed-size seed=" + FIXED_SEED
        + ", damage seed=" + DAMAGE_SEED);
    SplittableRandom random = new SplittableRandom(VARIABLE_SEED);
    Map<ByteBuffer, byte[]> records = new LinkedHashMap<>();
    records.put(ByteBuffer.wrap(new byte[0]), new byte[0]);
    records.put(ByteBuffer.wrap(new byte[] {0}), new byte[0]);
    while (records.size() < RECORDS) {
      records.put(ByteBuffer.wrap(TestRecords.bytes(random, random.nextInt(21))), TestRecords.bytes(random, random.nextInt(21)));
    }
    variable = build(dir.resolve("variable"), "variable", records, StoreBuilder.DEFAULT_INDEX, -1, VARIABLE_SEED);
    random = new SplittableRandom(FIXED_SEED);
    records = new LinkedHashMap<>();
    while (records.size() < RECORDS) {
      records.put(ByteBuffer.wrap(TestRecords.bytes(random, 16)), TestRecords.bytes(random, 8));
    }
    // Without record checksums, as stores of meta versions 1 to 3 are: damaged data may be served.
    fixed = build(dir.resolve("fixed"), "fixed", records, new EctParameters(16, 8, 2), 512, FIXED_SEED, false);
    assertTrue(fixed.fixedSize() && !variable.fixedSize());
    System.out.println("StoreCorruptionTest: file sizes variable=" + sizes(variable) + " fixed=" + sizes(fixed));
  }

  private static Map<String, Integer> sizes(Fixture f) {
    Map<String, Integer> sizes = new TreeMap<>();
    f.files().forEach((name, bytes) -> sizes.put(name, bytes.length));
    return sizes;
  }

  @AfterAll
  static void printCounts() {
    System.out.println("StoreCorruptionTest cases: " + COUNTS);
  }

  /** Builds a store ({@code pageBytes} -1: the builder's default alignment) and decodes its layout. */
  static Fixture build(Path dir, String name, Map<ByteBuffer, byte[]> records, IndexParameters parameters, int pageBytes, long seed)
      throws IOException {
    return build(dir, name, records, parameters, pageBytes, seed, true);
  }

  static Fixture build(
      Path dir, String name, Map<ByteBuffer, byte[]> records, IndexParameters parameters, int pageBytes, long seed, boolean checked)
      throws IOException {
    try (StoreBuilder builder =
        StoreBuilder.create(dir)
            .memoryBudget(StoreBuilder.MIN_MEMORY_BUDGET)
            .indexParameters(parameters)
            .recordChecksums(checked)
            .metadata("origin", name)) {
      if (pageBytes >= 0) {
        builder.pageAlignment(pageBytes);
      }
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    Map<String, byte[]> files = readFiles(dir);
    int n = records.size();
    byte[][] keys = new byte[n][];
    byte[][] values = new byte[n][];
    try (Store store = Store.open(dir)) {
      for (int r = 0; r < n; r++) {
        keys[r] = store.keyAt(r);
        values[r] = store.valueAt(r);
        assertArrayEquals(records.get(ByteBuffer.wrap(keys[r])), values[r]);
        assertEquals(r, store.indexOf(keys[r]));
      }
      store.verify();
    }
    // Record boundaries in the data payload, from the offsets (or the fixed layout) and the record
    // headers decoded here, independently of Store.
    StoreMeta meta = parseMeta(files.get(StoreFile.META.fileName()));
    byte[] data = files.get(StoreFile.DATA.fileName());
    int payload = StoreFile.DATA.payloadOffset();
    int end = data.length - StoreFile.FOOTER_LENGTH;
    assertEquals(meta.dataBytes(), end - payload, "data payload length");
    EliasFano offsets = meta.isFixedSize() ? null : readOffsets(files.get(StoreFile.OFFSETS.fileName()), n);
    long[] starts = new long[n + 1];
    long[] ends = new long[n];
    for (int r = 0; r < n; r++) {
      if (meta.isFixedSize()) {
        int length = meta.fixedRecordLength();
        starts[r] = RecordFormat.fixedRecordOffset(r, length, meta.pageBytes());
        ends[r] = starts[r] + length;
      } else {
        starts[r] = offsets.get(r);
        int at = payload + (int) starts[r];
        long key = RecordFormat.decodeVarint(data, at, end);
        long value = RecordFormat.decodeVarint(data, at + (int) (key >>> 32), end);
        assertEquals(keys[r].length, (int) key);
        assertEquals(values[r].length, (int) value);
        ends[r] = starts[r] + (int) (key >>> 32) + (int) (value >>> 32) + (int) key + (int) value + meta.checkBytes();
      }
      assertTrue(r == 0 ? starts[0] == 0 : starts[r] >= ends[r - 1], "record " + r + " overlaps the previous one");
    }
    starts[n] = meta.dataBytes();
    assertEquals(starts[n], n == 0 ? 0 : ends[n - 1], "the payload ends with the last record");
    // Where the meta payload keeps dataBytes and createdMillis (after the fixed-position fields).
    byte[] metaPayload = payloadOf(files.get(StoreFile.META.fileName()), StoreFile.META);
    boolean blocked = meta.indexKind() == IndexKind.BLOCKED;
    int dataBytesAt = find(metaPayload, ByteBuffer.allocate(8).putLong(meta.dataBytes()).array(), metaKnobsEnd(blocked) + 9);
    int createdAt = find(metaPayload, ByteBuffer.allocate(8).putLong(meta.createdMillis()).array(), dataBytesAt + 8);
    assertEquals(dataBytesAt + 8, createdAt, "meta layout: createdMillis follows dataBytes");
    SplittableRandom random = new SplittableRandom(seed + 1);
    Set<ByteBuffer> present = new HashSet<>();
    for (byte[] key : keys) {
      present.add(ByteBuffer.wrap(key));
    }
    List<byte[]> absent = new ArrayList<>();
    while (absent.size() < ABSENT_KEYS) {
      byte[] key = TestRecords.bytes(random, absent.size() % 4 == 0 ? 16 : 1 + random.nextInt(30));
      if (!present.contains(ByteBuffer.wrap(key))) {
        absent.add(key);
      }
    }
    return new Fixture(
        name, Map.copyOf(files), keys, values, starts, ends, List.copyOf(absent), meta.isFixedSize(), dataBytesAt, createdAt, blocked,
        meta.checkBytes());
  }

  /** The bytes of each file of the store in {@code dir}, by file name. */
  static Map<String, byte[]> readFiles(Path dir) throws IOException {
    Map<String, byte[]> files = new LinkedHashMap<>();
    for (StoreFile kind : StoreFile.values()) {
      Path file = dir.resolve(kind.fileName());
      if (Files.exists(file)) {
        files.put(kind.fileName(), Files.readAllBytes(file));
      }
    }
    return files;
  }

  /** The first position at or after {@code from} where {@code pattern} occurs in {@code bytes}. */
  static int find(byte[] bytes, byte[] pattern, int from) {
    for (int i = from; i + pattern.length <= bytes.length; i++) {
      if (Arrays.equals(bytes, i, i + pattern.length, pattern, 0, pattern.length)) {
        return i;
      }
    }
    throw new AssertionError("pattern not found");
  }

  // ---------------------------------------------------------------------------------------------
  // File surgery

  static int checksumOf(byte[] file) {
    return ByteBuffer.wrap(file, file.length - 4, 4).getInt();
  }

  static byte[] payloadOf(byte[] file, StoreFile kind) {
    return Arrays.copyOfRange(file, kind.payloadOffset(), file.length - StoreFile.FOOTER_LENGTH);
  }

  /** A file of {@code kind} around {@code payload} (header, zero padding, footer), with a correct footer. */
  static byte[] envelope(StoreFile kind, byte[] payload) {
    return withFooterOver(concat(Arrays.copyOf(kind.header(), kind.payloadOffset()), payload));
  }

  /** {@code body} followed by a valid footer over it (every store file's footer is the same). */
  static byte[] withFooterOver(byte[] body) {
    byte[] file = Arrays.copyOf(body, body.length + StoreFile.FOOTER_LENGTH);
    StoreFile.DATA.envelope().putFooter(file, 0, body.length);
    return file;
  }

  /** The file with its footer checksum recomputed over the (edited) header and payload, the footer's magic left as it is. */
  static byte[] refooter(byte[] file) {
    byte[] copy = file.clone();
    ByteBuffer.wrap(copy).putInt(copy.length - 4, Envelope.crc32c(copy, 0, copy.length - StoreFile.FOOTER_LENGTH));
    return copy;
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  static StoreMeta parseMeta(byte[] metaFile) throws IOException {
    byte[] payload = payloadOf(metaFile, StoreFile.META);
    int version = StoreFile.META.checkHeader(metaFile, "meta");
    return StoreMeta.readFrom(new DataInputStream(new ByteArrayInputStream(payload)), payload.length, version);
  }

  static byte[] writeMeta(StoreMeta meta) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    meta.writeTo(out);
    out.flush();
    // The payload's layout depends on the version, which must be the one the meta needs.
    byte[] header = Arrays.copyOf(StoreFile.META.header(meta.formatVersion()), StoreFile.META.payloadOffset());
    return withFooterOver(concat(header, bytes.toByteArray()));
  }

  /**
   * The files with {@code kind} replaced by {@code file}, the meta file recording its size and
   * checksum (and {@code dataBytes} when given, else unchanged).
   */
  static Map<String, byte[]> replaceAndRecord(Map<String, byte[]> files, StoreFile kind, byte[] file, long dataBytes)
      throws IOException {
    Map<String, byte[]> copy = new HashMap<>(files);
    copy.put(kind.fileName(), file);
    StoreMeta meta = parseMeta(files.get(StoreFile.META.fileName()));
    List<StoreMeta.FileEntry> entries = new ArrayList<>();
    for (StoreMeta.FileEntry entry : meta.files()) {
      entries.add(entry.name().equals(kind.fileName()) ? new StoreMeta.FileEntry(entry.name(), file.length, checksumOf(file)) : entry);
    }
    long newDataBytes = dataBytes >= 0 ? dataBytes : meta.dataBytes();
    StoreMeta lying = meta.withFiles(meta.indexParameters(), newDataBytes, meta.createdMillis(), entries);
    copy.put(StoreFile.META.fileName(), writeMeta(lying));
    return copy;
  }

  static Map<String, byte[]> replaceAndRecord(Map<String, byte[]> files, StoreFile kind, byte[] file) throws IOException {
    return replaceAndRecord(files, kind, file, -1);
  }

  static Map<String, byte[]> with(Map<String, byte[]> files, String name, byte[] file) {
    Map<String, byte[]> copy = new HashMap<>(files);
    if (file == null) {
      copy.remove(name);
    } else {
      copy.put(name, file);
    }
    return copy;
  }

  /** The meta file with its payload edited in place by {@code edit} (a ByteBuffer over it), footer recomputed. */
  static Map<String, byte[]> editMeta(Map<String, byte[]> files, Consumer<ByteBuffer> edit) {
    byte[] meta = files.get(StoreFile.META.fileName()).clone();
    ByteBuffer payload = ByteBuffer.wrap(meta, StoreFile.META.payloadOffset(), meta.length - (int) StoreFile.META.envelopeLength()).slice();
    edit.accept(payload);
    return with(files, StoreFile.META.fileName(), refooter(meta));
  }

  // Payload offsets of the meta fields (StoreMeta's layout).
  static final int META_RECORD_COUNT = 0;
  static final int META_SEED = 8;
  // Versions 1 and 2: the ECT knobs.
  static final int META_BUCKET_SIZE = 16;
  static final int META_HUFFMAN_MAX = 20;
  static final int META_SKIP_LEVELS = 24;
  // Version 3 with a blocked index: the index kind, then the one knob.
  static final int META_INDEX_KIND = 16;
  static final int META_KEYS_PER_BLOCK = 17;

  /** Where the fields after the index knobs start (keyMode, then keyLength, valueLength). */
  static int metaKnobsEnd(boolean blockedIndex) {
    return blockedIndex ? META_KEYS_PER_BLOCK + 4 : META_SKIP_LEVELS + 4;
  }
  // dataBytes, createdMillis and what follows: found per store (Fixture.metaDataBytesAt).

  static EliasFano readOffsets(byte[] offsetsFile, long n) throws IOException {
    return EliasFano.readFrom(new DataInputStream(new ByteArrayInputStream(payloadOf(offsetsFile, StoreFile.OFFSETS))), n + 1);
  }

  static byte[] offsetsFile(long[] offsets, long upperBound) throws IOException {
    EliasFano sequence = EliasFano.builder(offsets.length, upperBound).addAll(offsets).build();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    sequence.writeTo(out);
    out.flush();
    return envelope(StoreFile.OFFSETS, bytes.toByteArray());
  }

  /** The index file with its payload's own trailing checksum (ECT's or the blocked index's) and the file footer recomputed. */
  static byte[] refooterIndex(byte[] index) {
    byte[] copy = index.clone();
    int payloadStart = StoreFile.INDEX.payloadOffset();
    int ectChecksum = copy.length - StoreFile.FOOTER_LENGTH - 4;
    ByteBuffer.wrap(copy).putInt(ectChecksum, Envelope.crc32c(copy, payloadStart, ectChecksum - payloadStart));
    return refooter(copy);
  }

  // ---------------------------------------------------------------------------------------------
  // Running one case

  /** What a damaged store that opens may do. */
  record Damage(
      LongPredicate damagedRanks, boolean mayMiss, boolean verifyMustFail, boolean mustDetect, boolean verifyPassMeansIntact, boolean inData) {
    /**
     * Corruption of data payload bytes: only these records may read wrong (none, with record
     * checksums: a lookup of a damaged record must throw), and verify() must notice.
     */
    static Damage dataCorruption(LongPredicate ranks) {
      return new Damage(ranks, false, true, true, true, true);
    }

    /**
     * A hostile edit (file checksums recomputed) of the data payload: only these records may read
     * wrong (none, with record checksums, which the edit leaves wrong).
     */
    static Damage dataLie(LongPredicate ranks, boolean mustDetect) {
      return new Damage(ranks, false, false, mustDetect, false, true);
    }

    /** A hostile structure (meta, index, offsets) of unknown effect. */
    static Damage structureLie(LongPredicate ranks, boolean mayMiss, boolean mustDetect) {
      return new Damage(ranks, mayMiss, false, mustDetect, true, false);
    }
  }

  static final LongPredicate NONE = r -> false;
  static final LongPredicate ALL = r -> true;

  /** A lookup's result: a value, or the CorruptStoreException it threw. */
  record Result<T>(T value, CorruptStoreException corrupt) {}

  @FunctionalInterface
  interface Action<T> {
    T run() throws Exception;
  }

  static <T> Result<T> attempt(String label, String what, Action<T> action) {
    try {
      return new Result<>(action.run(), null);
    } catch (CorruptStoreException e) {
      return new Result<>(null, e);
    } catch (Throwable t) {
      throw new AssertionFailedError(label + ": " + what + " threw " + t + " instead of CorruptStoreException\n" + stackTrace(t), t);
    }
  }

  static String stackTrace(Throwable t) {
    StringWriter out = new StringWriter();
    t.printStackTrace(new PrintWriter(out));
    return out.toString();
  }

  static void count(String category) {
    COUNTS.computeIfAbsent(category, c -> new AtomicLong()).incrementAndGet();
  }

  Path writeStore(Map<String, byte[]> files) throws IOException {
    return writeStore(temp.resolve("work"), files);
  }

  /** Writes {@code files} (name to bytes) as the only files of {@code dir}, made or emptied first. */
  static Path writeStore(Path dir, Map<String, byte[]> files) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> list = Files.list(dir)) {
        for (Path p : (Iterable<Path>) list::iterator) {
          Files.delete(p);
        }
      }
    } else {
      Files.createDirectory(dir);
    }
    for (Map.Entry<String, byte[]> file : files.entrySet()) {
      Files.write(dir.resolve(file.getKey()), file.getValue());
    }
    return dir;
  }

  /** Open must fail with CorruptStoreException. */
  void expectRejected(Fixture f, String category, String what, Map<String, byte[]> files) throws IOException {
    run(f, category, what, files, null, false);
  }

  void run(Fixture f, String category, String what, Map<String, byte[]> files, Damage damage, boolean missing)
      throws IOException {
    count(category);
    String label = "[" + f.name() + "] " + category + ": " + what;
    Path dir = writeStore(files);
    // Half the cases (by their label, so runs repeat) read the damaged store loaded into memory:
    // a loaded store must be exactly as safe as a mapped one.
    DataAccess access = (label.hashCode() & 1) == 0 ? DataAccess.MAPPED : DataAccess.LOADED;
    Store store;
    try {
      store = Store.open(dir, access);
    } catch (CorruptStoreException e) {
      if (missing) {
        fail(label + ": expected NoSuchFileException, got " + e, e);
      }
      count(category + " -> rejected on open");
      return;
    } catch (NoSuchFileException e) {
      if (!missing) {
        fail(label + ": unexpected " + e, e);
      }
      return;
    } catch (Throwable t) {
      throw new AssertionFailedError(label + ": Store.open threw " + t + " instead of CorruptStoreException\n" + stackTrace(t), t);
    }
    try (store) {
      if (missing || damage == null) {
        fail(label + ": Store.open accepted a store it must reject");
      }
      count(category + " -> opened");
      checkDamagedStore(f, label, category, store, damage);
    }
  }

  void checkDamagedStore(Fixture f, String label, String category, Store store, Damage d) {
    // Records that carry checksums are checked by every lookup that reads them: damage in the data
    // must surface as CorruptStoreException, never as a wrong value or a miss.
    boolean checked = d.inData() && f.checkBytes() > 0;
    boolean detected = false;
    List<String> wrong = new ArrayList<>();
    byte[] target = new byte[40];
    for (int rank = 0; rank < f.n(); rank++) {
      final int r = rank;
      byte[] key = f.keys()[r];
      byte[] expected = f.values()[r];
      boolean damaged = !checked && d.damagedRanks().test(r);
      String of = " of the key of record " + r;

      Result<byte[]> got = attempt(label, "get" + of, () -> store.get(key));
      if (got.corrupt() != null) {
        detected = true;
      } else if (got.value() == null) {
        if (!damaged && !d.mayMiss()) {
          fail(label + ": get" + of + " returned null although that record is intact or checksummed");
        }
        wrong.add("get " + r + " missed");
      } else if (!Arrays.equals(got.value(), expected)) {
        if (!damaged) {
          fail(label + ": get" + of + " returned a wrong value " + Arrays.toString(got.value()) + " (intact or checksummed record; expected "
              + Arrays.toString(expected) + "): another key's record?");
        }
        wrong.add("get " + r + " damaged value");
      }

      Result<Long> index = attempt(label, "indexOf" + of, () -> store.indexOf(key));
      if (index.corrupt() != null) {
        detected = true;
      } else if (index.value() == -1) {
        if (!damaged && !d.mayMiss()) {
          fail(label + ": indexOf" + of + " returned -1 although that record is intact or checksummed");
        }
        wrong.add("indexOf " + r + " missed");
      } else if (index.value() != r) {
        fail(label + ": indexOf" + of + " returned " + index.value() + ": another key's record");
      }

      Result<Integer> length = attempt(label, "get(key, target)" + of, () -> store.get(key, 0, key.length, target, 2));
      if (length.corrupt() != null) {
        detected = true;
      } else if (length.value() == -1) {
        if (!damaged && !d.mayMiss()) {
          fail(label + ": get(key, target)" + of + " returned -1 although that record is intact or checksummed");
        }
      } else {
        int l = length.value();
        boolean right = l == expected.length && (l > target.length - 2 || Arrays.equals(Arrays.copyOfRange(target, 2, 2 + l), expected));
        if (!right && !damaged) {
          fail(label + ": get(key, target)" + of + " returned a wrong value of length " + l);
        }
      }

      Result<byte[]> keyAt = attempt(label, "keyAt(" + r + ")", () -> store.keyAt(r));
      Result<byte[]> valueAt = attempt(label, "valueAt(" + r + ")", () -> store.valueAt(r));
      for (Result<byte[]> at : List.of(keyAt, valueAt)) {
        if (at.corrupt() != null) {
          detected = true;
        }
      }
      if (!damaged && keyAt.corrupt() == null && !Arrays.equals(keyAt.value(), key)) {
        fail(label + ": keyAt(" + r + ") of an intact record returned a wrong key");
      }
      if (!damaged && valueAt.corrupt() == null && !Arrays.equals(valueAt.value(), expected)) {
        fail(label + ": valueAt(" + r + ") of an intact record returned a wrong value");
      }
    }

    for (byte[] key : f.absent()) {
      Result<byte[]> got = attempt(label, "get of an absent key", () -> store.get(key));
      Result<Long> index = attempt(label, "indexOf of an absent key", () -> store.indexOf(key));
      Result<Boolean> contains = attempt(label, "contains of an absent key", () -> store.contains(key));
      Result<Integer> length = attempt(label, "get(key, target) of an absent key", () -> store.get(key, 0, key.length, target, 0));
      detected |= got.corrupt() != null || index.corrupt() != null || contains.corrupt() != null || length.corrupt() != null;
      boolean found =
          (got.corrupt() == null && got.value() != null)
              || (index.corrupt() == null && index.value() != -1)
              || (contains.corrupt() == null && contains.value())
              || (length.corrupt() == null && length.value() != -1);
      if (found) {
        // Possible only if damage turned a record's key into this one: that record must be damaged.
        boolean explained = !checked && index.corrupt() == null && index.value() >= 0 && d.damagedRanks().test(index.value());
        if (!explained) {
          fail(label + ": absent key " + Arrays.toString(key) + " was found (indexOf " + index + ")");
        }
        wrong.add("absent key found");
      }
    }

    StoreCursor cursor = store.cursor();
    long seen = 0;
    while (cursor.next()) {
      Result<byte[]> key = attempt(label, "cursor.key() at " + seen, cursor::key);
      Result<byte[]> value = attempt(label, "cursor.value() at " + seen, cursor::value);
      detected |= key.corrupt() != null || value.corrupt() != null;
      seen++;
    }
    assertEquals(f.n(), seen, label + ": cursor length");
    attempt(label, "stats()", store::stats);

    Result<Object> verify = attempt(label, "verify()", () -> {
      store.verify();
      return null;
    });
    if (verify.corrupt() != null) {
      detected = true;
      count(category + " -> verify() threw CorruptStoreException");
    } else {
      if (d.verifyMustFail()) {
        fail(label + ": verify() passed on a damaged store");
      }
      if (d.verifyPassMeansIntact() && !wrong.isEmpty()) {
        fail(label + ": verify() passed although lookups were wrong: " + wrong.subList(0, Math.min(5, wrong.size())));
      }
    }
    if (d.mustDetect() && !detected) {
      fail(label + ": the damage went unnoticed (no CorruptStoreException from open, lookups or verify())");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 2. Corruption: checksums left wrong

  static List<Fixture> fixtures() {
    return List.of(variable, fixed);
  }

  @Test
  void untouchedCopiesOpenAndVerify() throws IOException {
    for (Fixture f : fixtures()) {
      Path dir = writeStore(f.files());
      try (Store store = Store.open(dir)) {
        checkDamagedStore(f, "[" + f.name() + "] untouched", "untouched", store, new Damage(NONE, false, false, false, true, false));
        store.verify();
      }
    }
  }

  @Test
  void truncatedFilesAreRejected() throws IOException {
    SplittableRandom random = new SplittableRandom(DAMAGE_SEED);
    for (Fixture f : fixtures()) {
      for (Map.Entry<String, byte[]> file : f.files().entrySet()) {
        byte[] bytes = file.getValue();
        StoreFile kind = kindOf(file.getKey());
        Set<Integer> lengths = new java.util.TreeSet<>(List.of(0, 1, 4, 5, kind.headerLength() - 1, kind.headerLength(),
            kind.headerLength() + 1, kind.payloadOffset() - 1, kind.payloadOffset(), kind.payloadOffset() + 1,
            bytes.length / 3, bytes.length / 2, bytes.length - 9, bytes.length - 8, bytes.length - 4, bytes.length - 1));
        for (int i = 0; i < 4; i++) {
          lengths.add(random.nextInt(bytes.length));
        }
        for (int length : lengths) {
          if (length >= 0 && length < bytes.length) {
            expectRejected(f, "truncation", file.getKey() + " cut to " + length + " of " + bytes.length + " bytes",
                with(f.files(), file.getKey(), Arrays.copyOf(bytes, length)));
          }
        }
      }
    }
  }

  @Test
  void singleBitFlipsAreCaught() throws IOException {
    SplittableRandom random = new SplittableRandom(DAMAGE_SEED + 1);
    for (Fixture f : fixtures()) {
      for (Map.Entry<String, byte[]> file : f.files().entrySet()) {
        byte[] bytes = file.getValue();
        StoreFile kind = kindOf(file.getKey());
        for (int position : positions(bytes.length, kind, random)) {
          int bit = random.nextInt(8);
          byte[] damaged = bytes.clone();
          damaged[position] ^= (byte) (1 << bit);
          String what = file.getKey() + " bit " + bit + " of byte " + position + " of " + bytes.length;
          Map<String, byte[]> files = with(f.files(), file.getKey(), damaged);
          boolean dataPayload = kind == StoreFile.DATA && position >= kind.payloadOffset() && position < bytes.length - 8;
          boolean padding = position >= kind.headerLength() && position < kind.payloadOffset();
          if (dataPayload) {
            long p = position - kind.payloadOffset();
            run(f, "bit flip (data payload)", what, files, Damage.dataCorruption(f.recordsOverlapping(p, p + 1)), false);
          } else if (padding) {
            // The padding after the data header: covered by the data checksum only.
            run(f, "bit flip (data padding)", what, files, Damage.dataCorruption(NONE), false);
          } else {
            expectRejected(f, "bit flip", what, files);
          }
        }
      }
    }
  }

  /** Every position of a small file; else the envelope and random payload positions. */
  static int[] positions(int length, StoreFile kind, SplittableRandom random) {
    if (length <= SMALL_FILE) {
      return java.util.stream.IntStream.range(0, length).toArray();
    }
    Set<Integer> positions = new java.util.TreeSet<>();
    for (int i = 0; i < kind.headerLength() + 8; i++) {
      positions.add(i);
    }
    for (int i = length - StoreFile.FOOTER_LENGTH; i < length; i++) {
      positions.add(i);
    }
    while (positions.size() < kind.headerLength() + 8 + StoreFile.FOOTER_LENGTH + RANDOM_FLIPS) {
      positions.add(random.nextInt(length));
    }
    return positions.stream().mapToInt(Integer::intValue).toArray();
  }

  static StoreFile kindOf(String name) {
    for (StoreFile kind : StoreFile.values()) {
      if (kind.fileName().equals(name)) {
        return kind;
      }
    }
    throw new IllegalArgumentException(name);
  }

  @Test
  void replacedHeadersAreRejected() throws IOException {
    for (Fixture f : fixtures()) {
      for (Map.Entry<String, byte[]> file : f.files().entrySet()) {
        String name = file.getKey();
        byte[] bytes = file.getValue();
        StoreFile kind = kindOf(name);
        int nameLength = kind.formatName().length();
        Map<String, byte[]> variants = new LinkedHashMap<>();
        variants.put("wrong magic", withInt(bytes, 0, 0x50414C44));
        variants.put("magic of the footer", withInt(bytes, 0, StoreFile.FOOTER_MAGIC));
        variants.put("name length 0", withByte(bytes, 4, 0));
        variants.put("name length 255", withByte(bytes, 4, 255));
        variants.put("name length + 1", withByte(bytes, 4, nameLength + 1));
        byte[] otherName = bytes.clone();
        otherName[5 + nameLength - 1] ^= 0x01;
        variants.put("mangled format name", otherName);
        for (StoreFile other : StoreFile.values()) {
          if (other != kind && other.formatName().length() == nameLength) {
            byte[] renamed = bytes.clone();
            System.arraycopy(other.formatName().getBytes(StandardCharsets.US_ASCII), 0, renamed, 5, nameLength);
            variants.put("format name " + other.formatName(), renamed);
          }
        }
        int versionAt = 5 + nameLength;
        variants.put("version + 1", withInt(bytes, versionAt, kind.version() + 1));
        variants.put("version 0", withInt(bytes, versionAt, 0));
        variants.put("version -1", withInt(bytes, versionAt, -1));
        variants.put("wrong footer magic", withInt(bytes, bytes.length - 8, StoreFile.MAGIC));
        for (Map.Entry<String, byte[]> variant : variants.entrySet()) {
          expectRejected(f, "replaced header", name + ": " + variant.getKey(), with(f.files(), name, variant.getValue()));
          // The same with the footer checksum and the meta file's records fixed: only the header check can catch it.
          byte[] refootered = refooter(variant.getValue());
          Map<String, byte[]> lying =
              kind == StoreFile.META ? with(f.files(), name, refootered) : replaceAndRecord(f.files(), kind, refootered);
          expectRejected(f, "replaced header (checksums fixed)", name + ": " + variant.getKey(), lying);
        }
        // Another file of the store copied over this one.
        for (Map.Entry<String, byte[]> source : f.files().entrySet()) {
          if (!source.getKey().equals(name)) {
            String what = source.getKey() + " copied over " + name;
            expectRejected(f, "file of another kind", what, with(f.files(), name, source.getValue()));
            if (kind != StoreFile.META) {
              expectRejected(f, "file of another kind (meta updated)", what, replaceAndRecord(f.files(), kind, source.getValue()));
            }
          }
        }
      }
    }
  }

  static byte[] withInt(byte[] bytes, int offset, int value) {
    byte[] copy = bytes.clone();
    ByteBuffer.wrap(copy).putInt(offset, value);
    return copy;
  }

  static byte[] withByte(byte[] bytes, int offset, int value) {
    byte[] copy = bytes.clone();
    copy[offset] = (byte) value;
    return copy;
  }

  @Test
  void appendedGarbageIsRejected() throws IOException {
    SplittableRandom random = new SplittableRandom(DAMAGE_SEED + 2);
    for (Fixture f : fixtures()) {
      for (Map.Entry<String, byte[]> file : f.files().entrySet()) {
        String name = file.getKey();
        byte[] bytes = file.getValue();
        for (int extra : new int[] {1, 7, 8, 9, 100}) {
          byte[] longer = concat(bytes, TestRecords.bytes(random, extra));
          expectRejected(f, "appended garbage", name + " + " + extra + " random bytes", with(f.files(), name, longer));
        }
        byte[] zeros = Arrays.copyOf(bytes, bytes.length + 16);
        expectRejected(f, "appended garbage", name + " + 16 zero bytes", with(f.files(), name, zeros));
        byte[] twice = concat(bytes, bytes);
        expectRejected(f, "appended garbage", name + " twice over", with(f.files(), name, twice));
        // Garbage followed by a valid footer: the old footer and the garbage become payload.
        byte[] refootered = withFooterOver(concat(bytes, TestRecords.bytes(random, 5)));
        expectRejected(f, "appended garbage + valid footer", name, with(f.files(), name, refootered));
      }
    }
  }

  @Test
  void missingFilesAreReported() throws IOException {
    for (Fixture f : fixtures()) {
      for (String name : f.files().keySet()) {
        // Without its meta file a directory is no store (a wrong path); without a file its meta
        // lists it is a damaged store (issue 19: it was reported as a missing file, a usage error).
        run(f, "deleted file", name, with(f.files(), name, null), null, name.equals(StoreFile.META.fileName()));
      }
      run(f, "deleted file", "all files", Map.of(), null, true);
      // The directory itself missing.
      count("deleted file");
      Path gone = temp.resolve("no-such-store");
      try {
        Store.open(gone).close();
        fail("opened a missing directory");
      } catch (NoSuchFileException expected) {
        // the contract
      }
    }
    // A fixed-size store with an offsets file it does not list is still the store it says it is;
    // a variable-size store without one is missing a file.
    Map<String, byte[]> extra = with(fixed.files(), StoreFile.OFFSETS.fileName(), variable.files().get(StoreFile.OFFSETS.fileName()));
    Path dir = writeStore(extra);
    try (Store store = Store.open(dir)) {
      assertEquals(RECORDS, store.size());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 3. Lies: checksums recomputed, content wrong

  @Test
  void lyingMetaFields() throws IOException {
    for (Fixture f : fixtures()) {
      long n = f.n();
      long d = f.dataBytes();
      int dataBytesAt = f.metaDataBytesAt();
      int fileCountAt = f.metaCreatedAt() + 8;
      int firstEntry = fileCountAt + 1;
      Map<String, Consumer<ByteBuffer>> rejected = new LinkedHashMap<>();
      for (long count : new long[] {n + 1, n - 1, 0, -1, 1L << 40, Long.MAX_VALUE, Long.MIN_VALUE}) {
        rejected.put("recordCount " + count, p -> p.putLong(META_RECORD_COUNT, count));
      }
      for (long bytes : new long[] {d + 1, d - 1, 0, -1, d + (1L << 32), Long.MAX_VALUE, Long.MIN_VALUE}) {
        rejected.put("dataBytes " + bytes, p -> p.putLong(dataBytesAt, bytes));
      }
      rejected.put("recordCount n + 1 and dataBytes to match", p -> {
        p.putLong(META_RECORD_COUNT, n + 1);
        if (f.fixedSize()) {
          p.putLong(dataBytesAt, d + 24);
        }
      });
      if (f.blockedIndex()) {
        rejected.put("index kind 0 (ECT)", p -> p.put(META_INDEX_KIND, (byte) 0));
        rejected.put("index kind 2", p -> p.put(META_INDEX_KIND, (byte) 2));
        rejected.put("index kind 255", p -> p.put(META_INDEX_KIND, (byte) 255));
        rejected.put("keysPerBlock + 1", p -> p.putInt(META_KEYS_PER_BLOCK, p.getInt(META_KEYS_PER_BLOCK) + 1));
        rejected.put("keysPerBlock - 1", p -> p.putInt(META_KEYS_PER_BLOCK, p.getInt(META_KEYS_PER_BLOCK) - 1));
        rejected.put("keysPerBlock 0", p -> p.putInt(META_KEYS_PER_BLOCK, 0));
        rejected.put("keysPerBlock 641", p -> p.putInt(META_KEYS_PER_BLOCK, 641));
        rejected.put("keysPerBlock MIN_VALUE", p -> p.putInt(META_KEYS_PER_BLOCK, Integer.MIN_VALUE));
      } else {
        rejected.put("bucketSize + 1", p -> p.putInt(META_BUCKET_SIZE, p.getInt(META_BUCKET_SIZE) + 1));
        rejected.put("bucketSize 0", p -> p.putInt(META_BUCKET_SIZE, 0));
        rejected.put("bucketSize -1", p -> p.putInt(META_BUCKET_SIZE, -1));
        rejected.put("huffmanMax 100000", p -> p.putInt(META_HUFFMAN_MAX, 100_000));
        rejected.put("huffmanMax - 1", p -> p.putInt(META_HUFFMAN_MAX, p.getInt(META_HUFFMAN_MAX) - 1));
        rejected.put("skipLevels 17", p -> p.putInt(META_SKIP_LEVELS, 17));
        rejected.put("skipLevels - 1", p -> p.putInt(META_SKIP_LEVELS, p.getInt(META_SKIP_LEVELS) - 1));
      }
      int keyModeAt = f.metaKeyModeAt();
      int keyLengthAt = f.metaKeyLengthAt();
      int valueLengthAt = f.metaValueLengthAt();
      rejected.put("keyMode 1", p -> p.put(keyModeAt, (byte) 1));
      rejected.put("keyMode 255", p -> p.put(keyModeAt, (byte) 255));
      rejected.put("keyLength -2", p -> p.putInt(keyLengthAt, -2));
      rejected.put("valueLength -2", p -> p.putInt(valueLengthAt, -2));
      rejected.put("keyLength MIN_VALUE", p -> p.putInt(keyLengthAt, Integer.MIN_VALUE));
      Map<String, Consumer<ByteBuffer>> pageLies = new LinkedHashMap<>();
      if (dataBytesAt == valueLengthAt + 8) { // pageBytes:int32 between valueLength and dataBytes
        int pageBytesAt = valueLengthAt + 4;
        rejected.put("pageBytes 1000", p -> p.putInt(pageBytesAt, 1000));
        rejected.put("pageBytes -4096", p -> p.putInt(pageBytesAt, -4096));
        rejected.put("pageBytes 8192", p -> p.putInt(pageBytesAt, 8192));
        rejected.put("pageBytes 256", p -> p.putInt(pageBytesAt, 256));
        rejected.put("pageBytes MIN_VALUE", p -> p.putInt(pageBytesAt, Integer.MIN_VALUE));
        for (int page : new int[] {0, 512, 1024, 2048, 4096}) {
          pageLies.put("pageBytes " + page, p -> p.putInt(pageBytesAt, page));
        }
      }
      if (f.fixedSize()) {
        rejected.put("variable sizes without offsets", p -> {
          p.putInt(keyLengthAt, -1);
          p.putInt(valueLengthAt, -1);
        });
        rejected.put("keyLength 17", p -> p.putInt(keyLengthAt, 17));
        rejected.put("keyLength MAX_VALUE", p -> p.putInt(keyLengthAt, Integer.MAX_VALUE));
        rejected.put("valueLength -1", p -> p.putInt(valueLengthAt, -1));
      } else {
        rejected.put("fixed 16+8 with offsets", p -> {
          p.putInt(keyLengthAt, 16);
          p.putInt(valueLengthAt, 8);
        });
        rejected.put("fixed sizes adding up to dataBytes with offsets", p -> {
          p.putInt(keyLengthAt, 0);
          p.putInt(valueLengthAt, 0);
          p.putLong(dataBytesAt, 0);
        });
      }
      int files = f.fixedSize() ? 2 : 3;
      rejected.put("fileCount 0", p -> p.put(fileCountAt, (byte) 0));
      rejected.put("fileCount - 1", p -> p.put(fileCountAt, (byte) (files - 1)));
      rejected.put("fileCount + 1", p -> p.put(fileCountAt, (byte) (files + 1)));
      rejected.put("fileCount 255", p -> p.put(fileCountAt, (byte) 255));
      rejected.put("first file name length MAX", p -> p.putInt(firstEntry, Integer.MAX_VALUE));
      rejected.put("first file name length -1", p -> p.putInt(firstEntry, -1));
      rejected.put("first file name 'meta'", p -> p.put(firstEntry + 4, "meta".getBytes(StandardCharsets.US_ASCII)));
      rejected.put("first file name 'offs' (unknown)", p -> p.put(firstEntry + 4, "offs".getBytes(StandardCharsets.US_ASCII)));
      rejected.put("data file size + 1", p -> p.putLong(firstEntry + 8, p.getLong(firstEntry + 8) + 1));
      rejected.put("data file size -1", p -> p.putLong(firstEntry + 8, -1));
      rejected.put("data file checksum + 1", p -> p.putInt(firstEntry + 16, p.getInt(firstEntry + 16) + 1));
      int userCount = firstEntry + files * 16 + (f.fixedSize() ? 4 + 5 : 4 + 7 + 5);
      rejected.put("user metadata count MAX", p -> p.putInt(p.limit() - 4 - 6 - 4 - f.name().length() - 4, Integer.MAX_VALUE));
      rejected.put("user metadata count -1", p -> p.putInt(p.limit() - 4 - 6 - 4 - f.name().length() - 4, -1));
      rejected.put("user metadata count 2", p -> p.putInt(p.limit() - 4 - 6 - 4 - f.name().length() - 4, 2));
      rejected.put("user metadata value length MAX", p -> p.putInt(p.limit() - 4 - f.name().length(), Integer.MAX_VALUE));
      rejected.put("user metadata key length + 1", p -> p.putInt(p.limit() - 4 - 6 - 4 - f.name().length(), 7));
      byte[] metaPayload = payloadOf(f.files().get("meta"), StoreFile.META);
      assertEquals(metaPayload.length - 18 - f.name().length(), userCount, "layout of the user metadata");
      assertEquals(1, ByteBuffer.wrap(metaPayload).getInt(userCount), "one user metadata entry");
      for (Map.Entry<String, Consumer<ByteBuffer>> lie : rejected.entrySet()) {
        expectRejected(f, "lying meta", lie.getKey(), editMeta(f.files(), lie.getValue()));
      }
      // Another valid page size: variable-size records are found through the offsets, so lookups
      // are unchanged; fixed-size ones move unless the payload length gives it away (it need not:
      // 300 records of 24 bytes take 7312 bytes in pages of 512 and of 1024), and then lookups
      // may miss but never find another key's record.
      for (Map.Entry<String, Consumer<ByteBuffer>> lie : pageLies.entrySet()) {
        Damage damage = f.fixedSize() ? Damage.structureLie(ALL, true, false) : Damage.structureLie(NONE, false, false);
        run(f, "lying meta (page size)", lie.getKey(), editMeta(f.files(), lie.getValue()), damage, false);
      }

      // Meta payload one byte short / one byte long, checksum fixed.
      byte[] payload = payloadOf(f.files().get("meta"), StoreFile.META);
      expectRejected(f, "lying meta", "payload one byte short", with(f.files(), "meta", envelope(StoreFile.META, Arrays.copyOf(payload, payload.length - 1))));
      expectRejected(f, "lying meta", "payload one byte long", with(f.files(), "meta", envelope(StoreFile.META, Arrays.copyOf(payload, payload.length + 1))));
      expectRejected(f, "lying meta", "empty payload", with(f.files(), "meta", envelope(StoreFile.META, new byte[0])));

      // Lies that open: lookups must miss (never find another key's record), verify() must notice.
      Damage misses = Damage.structureLie(ALL, true, true);
      run(f, "lying meta", "seed + 1", editMeta(f.files(), p -> p.putLong(META_SEED, p.getLong(META_SEED) + 1)), misses, false);
      if (f.fixedSize()) {
        for (int[] kv : new int[][] {{24, 0}, {0, 24}, {8, 16}, {23, 1}}) {
          run(f, "lying meta", "fixed sizes " + kv[0] + "+" + kv[1], editMeta(f.files(), p -> {
            p.putInt(keyLengthAt, kv[0]);
            p.putInt(valueLengthAt, kv[1]);
          }), misses, false);
        }
      }
      // Harmless lies: the creation time and the user metadata.
      Damage harmless = Damage.structureLie(NONE, false, false);
      run(f, "lying meta (harmless)", "createdMillis", editMeta(f.files(), p -> p.putLong(f.metaCreatedAt(), -1)), harmless, false);
    }
  }

  @Test
  void lyingDataPayloads() throws IOException {
    for (Fixture f : fixtures()) {
      byte[] data = f.files().get("data");
      int h = StoreFile.DATA.payloadOffset();
      long d = f.dataBytes();
      int n = f.n();
      // Record headers with huge or malformed lengths, written over the start of a record.
      Map<String, byte[]> headers = new LinkedHashMap<>();
      headers.put("key length MAX_LENGTH", new byte[] {(byte) 0xF7, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 0});
      headers.put("key length MAX_VALUE", new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 0});
      headers.put("key length 2^32-1", new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F, 0});
      headers.put("value length MAX_LENGTH", new byte[] {0, (byte) 0xF7, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07});
      headers.put("value length 2^35-1", new byte[] {0, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F});
      headers.put("six-byte varint", new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0});
      headers.put("key length 2^21-1", new byte[] {(byte) 0xFF, (byte) 0xFF, 0x7F, 0});
      headers.put("value length 2^21-1", new byte[] {0, (byte) 0xFF, (byte) 0xFF, 0x7F});
      headers.put("both lengths 2^14", new byte[] {(byte) 0x80, (byte) 0x80, 0x01, (byte) 0x80, (byte) 0x80, 0x01});
      headers.put("non-canonical zero lengths", new byte[] {(byte) 0x80, 0x00, (byte) 0x80, 0x00});
      headers.put("all ones", new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF});
      int[] ranks = {0, 1, n / 2, n - 2, n - 1};
      for (Map.Entry<String, byte[]> header : headers.entrySet()) {
        for (int r : ranks) {
          byte[] bytes = header.getValue();
          long start = f.starts()[r];
          int length = (int) Math.min(bytes.length, d - start);
          byte[] edited = data.clone();
          System.arraycopy(bytes, 0, edited, h + (int) start, length);
          String what = header.getKey() + " at record " + r + (length < bytes.length ? " (cut to " + length + " bytes)" : "");
          Map<String, byte[]> files = replaceAndRecord(f.files(), StoreFile.DATA, refooter(edited));
          boolean harmful = !f.fixedSize() && !header.getKey().startsWith("non-canonical");
          run(f, "lying data", what, files, Damage.dataLie(f.recordsOverlapping(start, start + length), harmful), false);
        }
      }
      // The last record's value claims the footer's bytes.
      if (!f.fixedSize()) {
        byte[] edited = data.clone();
        int last = h + (int) f.starts()[n - 1];
        long key = RecordFormat.decodeVarint(edited, last, data.length - 8);
        int valueAt = last + (int) (key >>> 32);
        edited[valueAt] = (byte) (edited[valueAt] + 4);
        run(f, "lying data", "last value 4 bytes too long", replaceAndRecord(f.files(), StoreFile.DATA, refooter(edited)),
            Damage.dataLie(f.recordsOverlapping(f.starts()[n - 1], d), true), false);

        // The data consistently one byte shorter: the last record runs past the end.
        long[] offsets = f.starts().clone();
        offsets[n] = d - 1;
        Map<String, byte[]> files =
            replaceAndRecord(f.files(), StoreFile.DATA, envelope(StoreFile.DATA, Arrays.copyOfRange(data, h, data.length - 9)), d - 1);
        files = replaceAndRecord(files, StoreFile.OFFSETS, offsetsFile(offsets, d - 1));
        run(f, "lying data", "payload one byte short, offsets and meta to match", files,
            Damage.dataLie(f.recordsOverlapping(d - 1, d), true), false);

        // The data consistently longer: slack after the last record is harmless.
        offsets = f.starts().clone();
        offsets[n] = d + 3;
        files = replaceAndRecord(f.files(), StoreFile.DATA,
            envelope(StoreFile.DATA, concat(Arrays.copyOfRange(data, h, data.length - 8), new byte[] {1, 2, 3})), d + 3);
        files = replaceAndRecord(files, StoreFile.OFFSETS, offsetsFile(offsets, d + 3));
        run(f, "lying data", "3 bytes of slack after the last record", files, Damage.dataLie(NONE, false), false);
      }
    }
  }

  @Test
  void lyingOffsets() throws IOException {
    Fixture f = variable;
    int n = f.n();
    long d = f.dataBytes();
    Map<String, long[]> lies = new LinkedHashMap<>();
    Map<String, LongPredicate> affected = new LinkedHashMap<>();
    long[] o;
    o = f.starts().clone();
    o[n - 1] = d;
    lies.put("last record starts at the end", o);
    o = f.starts().clone();
    for (int i = n / 2; i < n; i++) {
      o[i] = d;
    }
    lies.put("second half starts at the end", o);
    o = f.starts().clone();
    Arrays.fill(o, 0, n, 0);
    lies.put("every record starts at 0", o);
    o = f.starts().clone();
    Arrays.fill(o, 1, n, o[n - 1]);
    lies.put("records 1 to n - 1 start where the last does", o);
    for (int i = 1; i < n; i += 37) {
      o = f.starts().clone();
      o[i] = o[i - 1];
      lies.put("record " + i + " starts where the previous does", o);
      o = f.starts().clone();
      if (o[i] + 1 <= o[i + 1]) {
        o[i]++;
        lies.put("record " + i + " starts a byte late", o);
      }
      o = f.starts().clone();
      o[i] = o[i + 1];
      lies.put("record " + i + " starts where the next does", o);
    }
    for (Map.Entry<String, long[]> lie : lies.entrySet()) {
      long[] offsets = lie.getValue();
      Set<Long> changed = new HashSet<>();
      for (int i = 0; i < n; i++) {
        if (offsets[i] != f.starts()[i]) {
          changed.add((long) i);
        }
      }
      run(f, "lying offsets", lie.getKey(), replaceAndRecord(f.files(), StoreFile.OFFSETS, offsetsFile(offsets, d)),
          Damage.structureLie(changed::contains, true, true), false);
    }
    // Shapes that must be rejected on open.
    expectRejected(f, "lying offsets", "one offset missing",
        replaceAndRecord(f.files(), StoreFile.OFFSETS, offsetsFile(Arrays.copyOf(f.starts(), n), d)));
    long[] more = Arrays.copyOf(f.starts(), n + 2);
    more[n + 1] = d;
    expectRejected(f, "lying offsets", "one offset too many", replaceAndRecord(f.files(), StoreFile.OFFSETS, offsetsFile(more, d)));
    long[] short1 = f.starts().clone();
    short1[n] = d - 1;
    expectRejected(f, "lying offsets", "last offset dataBytes - 1", replaceAndRecord(f.files(), StoreFile.OFFSETS, offsetsFile(short1, d)));
    long[] long1 = f.starts().clone();
    long1[n] = d + 1;
    expectRejected(f, "lying offsets", "last offset dataBytes + 1", replaceAndRecord(f.files(), StoreFile.OFFSETS, offsetsFile(long1, d + 1)));
    long[] shifted = f.starts().clone();
    for (int i = 0; i <= n; i++) {
      shifted[i] += 5;
    }
    expectRejected(f, "lying offsets", "first offset 5", replaceAndRecord(f.files(), StoreFile.OFFSETS, offsetsFile(shifted, d + 5)));
    long[] huge = f.starts().clone();
    huge[n] = Long.MAX_VALUE - 1;
    expectRejected(f, "lying offsets", "last offset 2^63 - 2", replaceAndRecord(f.files(), StoreFile.OFFSETS, offsetsFile(huge, Long.MAX_VALUE - 1)));
    // The right offsets under a larger upper bound: another encoding of the same sequence.
    run(f, "lying offsets (harmless)", "upper bound 2^62", replaceAndRecord(f.files(), StoreFile.OFFSETS, offsetsFile(f.starts(), 1L << 62)),
        Damage.structureLie(NONE, false, false), false);
    // The index file as the offsets file, with the meta file recording it.
    expectRejected(f, "lying offsets", "index payload in an offsets envelope",
        replaceAndRecord(f.files(), StoreFile.OFFSETS, envelope(StoreFile.OFFSETS, payloadOf(f.files().get("index"), StoreFile.INDEX))));
  }

  @Test
  void lyingIndex() throws IOException {
    // An index of other keys with the same count and parameters: lookups miss, never find another key.
    for (Fixture f : fixtures()) {
      SplittableRandom random = new SplittableRandom(DAMAGE_SEED + 3);
      Map<ByteBuffer, byte[]> others = new LinkedHashMap<>();
      while (others.size() < f.n()) {
        others.put(ByteBuffer.wrap(TestRecords.bytes(random, 16)), TestRecords.bytes(random, 8));
      }
      Fixture other = build(temp.resolve("other-" + f.name()), "other", others,
          parseMeta(f.files().get("meta")).indexParameters(), -1, DAMAGE_SEED + 3);
      run(f, "lying index", "an index of other keys", replaceAndRecord(f.files(), StoreFile.INDEX, other.files().get("index")),
          Damage.structureLie(NONE, true, true), false);
      Fixture otherStore = f == variable ? fixed : variable;
      expectRejected(f, "lying index", "the other store's index", replaceAndRecord(f.files(), StoreFile.INDEX, otherStore.files().get("index")));
    }
  }

  /**
   * A bit flip at every payload byte of meta, index and offsets, with every checksum recomputed, so
   * that the parsers and the structure checks are all that stands between the flip and a lookup.
   */
  @Test
  void bitFlipsWithValidChecksumsInStructures() throws IOException {
    SplittableRandom random = new SplittableRandom(DAMAGE_SEED + 4);
    for (Fixture f : fixtures()) {
      for (StoreFile kind : new StoreFile[] {StoreFile.META, StoreFile.INDEX, StoreFile.OFFSETS}) {
        byte[] bytes = f.files().get(kind.fileName());
        if (bytes == null) {
          continue;
        }
        int from = kind.payloadOffset();
        int to = bytes.length - StoreFile.FOOTER_LENGTH - (kind == StoreFile.INDEX ? 4 : 0);
        for (int position = from; position < to; position++) {
          for (int bit : new int[] {random.nextInt(8)}) {
            byte[] edited = bytes.clone();
            edited[position] ^= (byte) (1 << bit);
            String what = kind.fileName() + " bit " + bit + " of byte " + position;
            String category = "valid-checksum flip in " + kind.fileName();
            Map<String, byte[]> files;
            LongPredicate damaged;
            if (kind == StoreFile.META) {
              files = with(f.files(), "meta", refooter(edited));
              damaged = ALL;
            } else if (kind == StoreFile.INDEX) {
              files = replaceAndRecord(f.files(), kind, refooterIndex(edited));
              damaged = NONE; // records intact: a wrong rank reads another record, whose key differs
            } else {
              byte[] file = refooter(edited);
              files = replaceAndRecord(f.files(), kind, file);
              damaged = changedOffsets(f, file);
            }
            run(f, category, what, files, Damage.structureLie(damaged, true, false), false);
          }
        }
      }
    }
  }

  /** The records whose offset differs in this offsets file (all when it does not parse). */
  static LongPredicate changedOffsets(Fixture f, byte[] offsetsFile) {
    EliasFano offsets;
    try {
      offsets = readOffsets(offsetsFile, f.n());
      if (offsets.size() != f.n() + 1) {
        return ALL;
      }
    } catch (IOException | RuntimeException unreadable) {
      return ALL;
    }
    Set<Long> changed = new HashSet<>();
    for (int i = 0; i < f.n(); i++) {
      if (offsets.get(i) != f.starts()[i]) {
        changed.add((long) i);
      }
    }
    return changed::contains;
  }

  /** A bit flip at every data payload byte with the checksums recomputed: only that record may change. */
  @Test
  void bitFlipsWithValidChecksumsInData() throws IOException {
    SplittableRandom random = new SplittableRandom(DAMAGE_SEED + 5);
    for (Fixture f : fixtures()) {
      byte[] data = f.files().get("data");
      int h = StoreFile.DATA.payloadOffset();
      for (int i = 0; i < RANDOM_DATA_LIES; i++) {
        int position = h + random.nextInt((int) f.dataBytes());
        int bit = random.nextInt(8);
        byte[] edited = data.clone();
        edited[position] ^= (byte) (1 << bit);
        long p = position - h;
        run(f, "valid-checksum flip in data", "bit " + bit + " of byte " + position,
            replaceAndRecord(f.files(), StoreFile.DATA, refooter(edited)), Damage.dataLie(f.recordsOverlapping(p, p + 1), false), false);
      }
    }
  }

  /**
   * Fixed-size records longer than {@code Integer.MAX_VALUE} bytes in all (a key of {@code
   * RecordFormat.MAX_LENGTH} bytes and a 16-byte value): a reader must reject them or treat them
   * right (a 16-byte key is then simply absent), and neither overflow nor crash. The data file of
   * over 2 GiB is sparse.
   */
  @Test
  void fixedRecordsLongerThanAnInt() throws IOException {
    longFixedRecord(RecordFormat.MAX_LENGTH, 16, false);
  }

  /** A fixed key length over {@code RecordFormat.MAX_LENGTH}: no Java array holds such a key. */
  @Test
  void fixedKeyLengthOverTheLimit() throws IOException {
    longFixedRecord(Integer.MAX_VALUE, 0, true);
  }

  /**
   * A one-record fixed-size store whose meta claims records of {@code keyLength + valueLength}
   * bytes, over a sparse data file of that size.
   */
  private void longFixedRecord(int keyLength, int valueLength, boolean readKey) throws IOException {
    SplittableRandom random = new SplittableRandom(FIXED_SEED + 1);
    Map<ByteBuffer, byte[]> one = new LinkedHashMap<>();
    byte[] key = TestRecords.bytes(random, 16);
    one.put(ByteBuffer.wrap(key), TestRecords.bytes(random, 8));
    Fixture f = build(temp.resolve("one"), "one", one, StoreBuilder.DEFAULT_INDEX, -1, FIXED_SEED + 1);
    long dataBytes = (long) keyLength + valueLength;
    int checksum = 0x12345678;
    long dataFileLength = StoreFile.DATA.envelopeLength() + dataBytes;
    StoreMeta meta = parseMeta(f.files().get("meta"));
    List<StoreMeta.FileEntry> entries = new ArrayList<>();
    for (StoreMeta.FileEntry entry : meta.files()) {
      entries.add(entry.name().equals("data") ? new StoreMeta.FileEntry("data", dataFileLength, checksum) : entry);
    }
    // A valid meta of the same layout (one record of Integer.MAX_VALUE bytes), then the lie.
    int validKey = RecordFormat.MAX_LENGTH;
    int validValue = Integer.MAX_VALUE - validKey - meta.checkBytes();
    Map<String, byte[]> files = new HashMap<>(f.files());
    files.remove("data");
    files.put("meta", writeMeta(new StoreMeta(1, meta.seed(), meta.indexParameters(), meta.keyMode(), validKey, validValue,
        meta.pageBytes(), meta.recordChecksum(), meta.recordCheckSalt(), meta.hashRange(), Integer.MAX_VALUE, meta.createdMillis(), entries, meta.userMetadata())));
    files = editMeta(files, p -> {
      p.putInt(f.metaKeyLengthAt(), keyLength);
      p.putInt(f.metaValueLengthAt(), valueLength);
      p.putLong(f.metaDataBytesAt(), dataBytes);
    });
    Path dir = writeStore(files);
    try (FileChannel channel = FileChannel.open(dir.resolve("data"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(StoreFile.DATA.header()), 0);
      channel.write(ByteBuffer.allocate(8).putInt(StoreFile.FOOTER_MAGIC).putInt(checksum).flip(), dataFileLength - 8);
    }
    String label = "[one] fixed records of " + keyLength + " + " + valueLength + " bytes";
    count("fixed records longer than an int");
    try {
      Result<Store> opened = attempt(label, "Store.open", () -> Store.open(dir));
      if (opened.corrupt() != null) {
        count("fixed records longer than an int -> rejected on open");
        return; // within the contract
      }
      try (Store store = opened.value()) {
        Result<byte[]> got = attempt(label, "get", () -> store.get(key));
        assertTrue(got.corrupt() != null || got.value() == null, label + ": a 16-byte key matched a longer one");
        Result<Long> index = attempt(label, "indexOf", () -> store.indexOf(key));
        assertTrue(index.corrupt() != null || index.value() == -1, label + ": indexOf found a 16-byte key");
        Result<Integer> length = attempt(label, "get(key, target)", () -> store.get(key, 0, 16, new byte[8], 0));
        assertTrue(length.corrupt() != null || length.value() == -1, label + ": get(key, target) found a 16-byte key");
        if (readKey) {
          Result<byte[]> stored = attempt(label, "keyAt(0)", () -> store.keyAt(0));
          assertTrue(stored.corrupt() != null, label + ": keyAt(0) read a key longer than any array");
        }
        // verify() is left out: it would read the 2 GiB (and fail on the made-up checksum).
      }
    } finally {
      Files.deleteIfExists(dir.resolve("data"));
    }
  }

  /**
   * Random bytes over the end of the index's tries (the last bucket's bits and the spare word
   * after them), every checksum recomputed: decoding must stop at the end of the trie, not run off
   * the array. The stores are chosen so that the trie ends exactly at a word boundary, where a
   * code that runs past the end lands in the spare word at once and a peek at the next 64 bits
   * would read past the array.
   */
  @Test
  void garbageAtTheEndOfTheTrie() throws IOException {
    for (EctParameters parameters : new EctParameters[] {StoreBuilder.DEFAULT_ECT_INDEX, new EctParameters(16, 8, 2)}) {
      Fixture f = null;
      long seed = DAMAGE_SEED + 6;
      for (int n = 120; f == null && n < 400; n++) {
        seed = DAMAGE_SEED + 6 + n;
        SplittableRandom random = new SplittableRandom(seed);
        Map<ByteBuffer, byte[]> records = new LinkedHashMap<>();
        while (records.size() < n) {
          records.put(ByteBuffer.wrap(TestRecords.bytes(random, 16)), TestRecords.bytes(random, 8));
        }
        String name = "trie-end g=" + parameters.bucketSize() + " hmax=" + parameters.huffmanMax() + " skip="
            + parameters.skipLevels() + " n=" + n + " seed=" + seed;
        Fixture candidate = build(temp.resolve("trie-end-" + parameters.bucketSize() + "-" + n), name, records, parameters, -1, seed);
        long trieBits = ByteBuffer.wrap(payloadOf(candidate.files().get("index"), StoreFile.INDEX)).getLong(40);
        if (trieBits % 64 == 0) {
          f = candidate;
          System.out.println("garbageAtTheEndOfTheTrie: " + name + ", trie of " + trieBits + " bits");
        }
      }
      assertTrue(f != null, "no store with a trie ending at a word boundary for " + parameters);
      SplittableRandom random = new SplittableRandom(seed + 1);
      byte[] index = f.files().get("index");
      int end = index.length - StoreFile.FOOTER_LENGTH - 4; // before the ECT checksum
      int tail = Math.min(24, end - StoreFile.INDEX.payloadOffset());
      for (int i = 0; i < TRIE_TAILS; i++) {
        byte[] edited = index.clone();
        int bytes = 1 + random.nextInt(6);
        StringBuilder what = new StringBuilder();
        for (int j = 0; j < bytes; j++) {
          int position = end - 1 - random.nextInt(tail);
          edited[position] = (byte) random.nextInt(256);
          what.append(position).append(' ');
        }
        run(f, "garbage at the end of the trie", "bytes " + what, replaceAndRecord(f.files(), StoreFile.INDEX, refooterIndex(edited)),
            Damage.structureLie(NONE, true, false), false);
      }
    }
  }

  /**
   * Offsets that point a byte or two into a record, where the bytes parse as a record whose
   * (garbage) key the index happens to send to that same rank: every lookup by key then agrees
   * with the offsets, and the real key silently disappears. Found by search over the fixture;
   * {@code verify()} must still notice that the records no longer tile the data.
   */
  @Test
  void offsetsThatHideARecord() throws IOException {
    // The hiding needs records without checksums (stores of meta versions 1 to 3): a checksum is
    // bound to where its record starts, so a shifted offset fails it (offsetsOffByAFewBytesFailTheChecksum).
    Map<ByteBuffer, byte[]> records = new LinkedHashMap<>();
    for (int r = 0; r < variable.n(); r++) {
      records.put(ByteBuffer.wrap(variable.keys()[r]), variable.values()[r]);
    }
    Fixture f = build(temp.resolve("unchecked"), "variable-unchecked", records, StoreBuilder.DEFAULT_INDEX, -1, VARIABLE_SEED, false);
    byte[] index = f.files().get("index");
    RankIndex ect = IndexFile.readFrom(new ByteArrayInputStream(payloadOf(index, StoreFile.INDEX)), parseMeta(f.files().get("meta")), null);
    KeyHasher hasher = KeyHasher.withSeed(parseMeta(f.files().get("meta")).seed());
    byte[] data = f.files().get("data");
    int h = StoreFile.DATA.payloadOffset();
    int end = data.length - StoreFile.FOOTER_LENGTH;
    long[] hash = new long[2];
    int found = 0;
    for (int r = 0; r < f.n(); r++) {
      for (int shift = 1; shift <= 3; shift++) {
        long start = f.starts()[r] + shift;
        if (start > f.starts()[r + 1]) {
          continue;
        }
        int at = h + (int) start;
        long key;
        long value;
        try {
          key = RecordFormat.decodeVarint(data, at, end);
          value = RecordFormat.decodeVarint(data, at + (int) (key >>> 32), end);
        } catch (CorruptStoreException unparseable) {
          continue;
        }
        int keyStart = at + RecordFormat.headerLength((int) key, (int) value);
        if (keyStart + (int) key + (int) value > end) {
          continue;
        }
        byte[] garbage = Arrays.copyOfRange(data, keyStart, keyStart + (int) key);
        hasher.hash(garbage, hash);
        if (parseMeta(f.files().get("meta")).hashRange().rank(ect, hash[0], hash[1]) != r || Arrays.equals(garbage, f.keys()[r])) {
          continue;
        }
        long[] offsets = f.starts().clone();
        offsets[r] = start;
        long rank = r;
        run(f, "offsets that hide a record", "record " + r + " shifted by " + shift + " to garbage key " + Arrays.toString(garbage),
            replaceAndRecord(f.files(), StoreFile.OFFSETS, offsetsFile(offsets, f.dataBytes())),
            Damage.structureLie(x -> x == rank, true, true), false);
        found++;
      }
    }
    System.out.println("offsetsThatHideARecord: " + found + " cases");
    assertTrue(found > 0, "the search found no offset that hides a record: choose another seed");
  }

  /** With record checksums, an offset moved into its record makes the lookup of its key fail, never miss. */
  @Test
  void offsetsOffByAFewBytesFailTheChecksum() throws IOException {
    Fixture f = variable;
    assertTrue(f.checkBytes() > 0);
    int cases = 0;
    for (int r = 0; r < f.n(); r += 7) {
      for (int shift = 1; shift <= 3; shift++) {
        long start = f.starts()[r] + shift;
        if (start >= f.ends()[r]) {
          continue;
        }
        long[] offsets = f.starts().clone();
        offsets[r] = start;
        Path dir = writeStore(replaceAndRecord(f.files(), StoreFile.OFFSETS, offsetsFile(offsets, f.dataBytes())));
        byte[] key = f.keys()[r];
        try (Store store = Store.open(dir)) {
          assertThrows(CorruptStoreException.class, () -> store.get(key), "record " + r + " shifted by " + shift);
          assertThrows(CorruptStoreException.class, () -> store.indexOf(key), "record " + r + " shifted by " + shift);
        } catch (CorruptStoreException rejectedOnOpen) {
          // Also fine: the offsets no longer increase.
        }
        cases++;
      }
    }
    count("offsets off by a few bytes (checked records): " + cases);
    assertTrue(cases > 100, "cases: " + cases);
  }

  @Test
  void absentKeysOfTheFixturesAreAbsent() throws IOException {
    for (Fixture f : fixtures()) {
      try (Store store = Store.open(writeStore(f.files()))) {
        for (byte[] key : f.absent()) {
          assertNull(store.get(key));
        }
      }
    }
  }
}
