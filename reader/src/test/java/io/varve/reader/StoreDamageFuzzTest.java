package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.builder.StoreBuilder;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.StoreFile;
import io.varve.core.store.KeyMode;
import io.varve.core.store.PagedParameters;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damages every file of every kind of store at random and checks what a serving library must
 * promise: each call gives the right answer or throws {@link CorruptStoreException}, never another
 * answer (a damaged value, a present key reported absent, an absent key found) and never another
 * exception. Store kinds: the default (blocked index, variable sizes), ECT, sparse, fixed sizes,
 * 16-bit key signatures and no keys, and apart from them paged; all with record checksums, the default.
 *
 * <p>Damage: bit flips, changed bytes, overwritten, zeroed and copied ranges (a misdirected write),
 * truncation and appended bytes, to any file; left with a wrong checksum (what disks and networks
 * do), or, in the data file, with its checksums recomputed as a hostile writer would (the record
 * checksums then catch it). Iterations: {@code -Dvarve.fuzz.iterations} (default 4,000); a failure
 * names its seed and iteration, so that {@code -Dvarve.fuzz.seed} and {@code
 * -Dvarve.fuzz.first} replay it.
 */
class StoreDamageFuzzTest {
  private static final long SEED = Long.getLong("varve.fuzz.seed", 0xF022L);
  private static final int ITERATIONS = Integer.getInteger("varve.fuzz.iterations", 4000);
  private static final int FIRST = Integer.getInteger("varve.fuzz.first", 0);
  private static final int RECORDS = 300;
  private static final int ABSENT = 100;

  private static final List<Kind> KINDS = new ArrayList<>();
  /** Paged stores, fuzzed by a test of their own ({@link #pagedStoresAnswerRightOrReportDamage}). */
  private static final List<Kind> PAGED = new ArrayList<>();
  private static final Map<String, Long> OUTCOMES = new TreeMap<>();

  @TempDir static Path fixtures;
  @TempDir Path temp;

  /** One intact store: its files and what every call must answer. */
  record Kind(
      String name,
      Map<String, byte[]> files,
      Map<ByteBuffer, byte[]> records,
      byte[][] keyAt,
      byte[][] valueAt,
      List<byte[]> absent,
      boolean keepsKeys) {}

  @BeforeAll
  static void buildStores() throws IOException {
    System.out.println("StoreDamageFuzzTest seed " + Long.toHexString(SEED) + ", iterations " + FIRST + " to " + (FIRST + ITERATIONS));
    add("default", variableRecords(1), b -> b.indexParameters(StoreBuilder.DEFAULT_INDEX)); // the default before pages
    add("ect", variableRecords(2), b -> b.indexParameters(StoreBuilder.DEFAULT_ECT_INDEX));
    add("sparse", variableRecords(3), b -> b.sparseIndex(4096));
    add("fixed", TestRecords.fixed(RECORDS, SEED + 4, 16, 8), b -> {});
    add("signature", variableRecords(5), b -> b.keyMode(KeyMode.signature(16)));
    add("none", variableRecords(6), b -> b.keyMode(KeyMode.NONE));
    // Apart, so that the kinds the regression cases draw from stay as they were.
    add("paged", variableRecords(7), b -> b.indexParameters(PagedParameters.INSTANCE).pageAlignment(512));
    PAGED.add(KINDS.remove(KINDS.size() - 1));
  }

  /** Edge cases first: the empty key, an empty value, non-ASCII bytes, a value over a page. */
  private static Map<ByteBuffer, byte[]> variableRecords(long seed) {
    SplittableRandom random = new SplittableRandom(SEED + seed);
    Map<ByteBuffer, byte[]> records = new LinkedHashMap<>();
    records.put(ByteBuffer.wrap(new byte[0]), "empty key".getBytes(StandardCharsets.UTF_8));
    records.put(ByteBuffer.wrap("ключ-キー".getBytes(StandardCharsets.UTF_8)), new byte[0]);
    records.put(ByteBuffer.wrap("large".getBytes(StandardCharsets.UTF_8)), TestRecords.bytes(random, 6000));
    while (records.size() < RECORDS) {
      records.put(ByteBuffer.wrap(TestRecords.bytes(random, 1 + random.nextInt(24))), TestRecords.bytes(random, random.nextInt(40)));
    }
    return records;
  }

  private static void add(String name, Map<ByteBuffer, byte[]> records, Consumer<StoreBuilder> options) throws IOException {
    Path dir = fixtures.resolve(name);
    try (StoreBuilder builder = StoreBuilder.create(dir).memoryBudget(StoreBuilder.MIN_MEMORY_BUDGET)) {
      options.accept(builder);
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    Map<String, byte[]> files = StoreCorruptionTest.readFiles(dir);
    SplittableRandom random = new SplittableRandom(SEED + name.hashCode());
    try (Store store = Store.open(dir)) {
      int n = (int) store.size();
      byte[][] keyAt = new byte[n][];
      byte[][] valueAt = new byte[n][];
      boolean keepsKeys = store.meta().keyMode().keepsKeys();
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        int rank = (int) store.indexOf(e.getKey().array());
        keyAt[rank] = e.getKey().array();
        valueAt[rank] = e.getValue();
      }
      // Absent keys the intact store reports absent (with signatures, a few would be found).
      List<byte[]> absent = new ArrayList<>();
      boolean absentKeysAnswered = keepsKeys || store.meta().keyMode().kind() == KeyMode.Kind.SIGNATURE;
      while (absentKeysAnswered && absent.size() < ABSENT) {
        byte[] key = TestRecords.bytes(random, 1 + random.nextInt(24));
        if (!records.containsKey(ByteBuffer.wrap(key)) && store.get(key) == null) {
          absent.add(key);
        }
      }
      store.verify();
      KINDS.add(new Kind(name, files, records, keyAt, valueAt, absent, keepsKeys));
    }
  }

  @AfterAll
  static void printOutcomes() {
    System.out.println("StoreDamageFuzzTest outcomes: " + OUTCOMES);
  }

  private static void count(String outcome) {
    synchronized (OUTCOMES) {
      OUTCOMES.merge(outcome, 1L, Long::sum);
    }
  }

  @Test
  void everyCallAnswersRightOrReportsDamage() throws IOException {
    for (int iteration = FIRST; iteration < FIRST + ITERATIONS; iteration++) {
      run(SEED, iteration, KINDS);
    }
  }

  /** The same over a paged store (512-byte pages, records crossing them, one larger than a page). */
  @Test
  void pagedStoresAnswerRightOrReportDamage() throws IOException {
    for (int iteration = FIRST; iteration < FIRST + ITERATIONS / 4; iteration++) {
      run(SEED, iteration, PAGED);
    }
  }

  /**
   * Cases the fuzzing once failed on, kept in {@code fuzz/store-damage/} (one per line: seed,
   * iteration and the case as {@link #run} describes it, which must still match: a changed
   * generator or fixture makes them describe other damage, and they must then be found anew).
   */
  @Test
  void casesThatOnceFailedStayFixed() throws Exception {
    Path folder = Path.of(StoreDamageFuzzTest.class.getResource("/fuzz/store-damage").toURI());
    int cases = 0;
    try (var files = Files.list(folder)) {
      for (Path file : (Iterable<Path>) files.sorted()::iterator) {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          if (line.isBlank() || line.startsWith("#")) {
            continue;
          }
          String[] fields = line.split(" ", 3);
          String described = run(Long.parseLong(fields[0], 16), Integer.parseInt(fields[1]), KINDS);
          assertEquals(fields[2], described, file.getFileName() + ": the case no longer describes the same damage");
          cases++;
        }
      }
    }
    assertTrue(cases > 0, "no regression cases in " + folder);
  }

  /** Damages one store as iteration {@code iteration} of seed {@code seed} says, checks it, and describes the case. */
  private String run(long seed, int iteration, List<Kind> kinds) throws IOException {
    SplittableRandom random = new SplittableRandom(seed ^ (iteration * 0x9E3779B97F4A7C15L));
    Kind kind = kinds.get(random.nextInt(kinds.size()));
    List<String> names = new ArrayList<>(kind.files().keySet());
    String file = names.get(random.nextInt(names.size()));
    Damage damage = Damage.values()[random.nextInt(Damage.values().length)];
    boolean lie = file.equals(StoreFile.DATA.fileName()) && damage.keepsLength() && random.nextBoolean();
    byte[] original = kind.files().get(file);
    byte[] damaged = damage.apply(original, random);
    DataAccess access = random.nextBoolean() ? DataAccess.MAPPED : DataAccess.LOADED;
    String described = kind.name() + "/" + file + " " + damage + (lie ? " with checksums recomputed" : "") + ", " + access;
    if (Arrays.equals(original, damaged)) {
      return described + " (no change)";
    }
    Map<String, byte[]> files = new HashMap<>(kind.files());
    files.put(file, damaged);
    if (lie) {
      files = StoreCorruptionTest.replaceAndRecord(kind.files(), StoreFile.DATA, StoreCorruptionTest.refooter(damaged));
    }
    Path dir = StoreCorruptionTest.writeStore(temp.resolve("damaged"), files);
    check("iteration " + iteration + " (seed " + Long.toHexString(seed) + "): " + described, kind, dir, access, lie);
    count(kind.name() + "/" + file);
    return described;
  }

  private static void check(String label, Kind kind, Path dir, DataAccess access, boolean lie) throws IOException {
    Store store;
    try {
      store = Store.open(dir, access);
    } catch (CorruptStoreException rejected) {
      count("rejected on open");
      return;
    } catch (Throwable t) {
      throw new AssertionError(label + ": open threw " + t, t);
    }
    boolean detected = false;
    try (store) {
      byte[] target = new byte[64];
      for (Map.Entry<ByteBuffer, byte[]> e : kind.records().entrySet()) {
        byte[] key = e.getKey().array();
        byte[] expected = e.getValue();
        detected |= answers(label, "get", () -> store.get(key), value -> assertArrayEquals(expected, value));
        detected |= answers(label, "get(target)", () -> store.get(key, 0, key.length, target, 1), length -> {
          assertEquals(expected.length, length);
          if (length <= target.length - 1) {
            assertArrayEquals(expected, Arrays.copyOfRange(target, 1, 1 + length));
          }
        });
        detected |= answers(label, "indexOf", () -> store.indexOf(key), rank -> assertArrayEquals(key, kind.keyAt()[(int) (long) rank]));
      }
      for (byte[] key : kind.absent()) {
        detected |= answers(label, "get of an absent key", () -> store.get(key), value -> assertEquals(null, value));
        detected |= answers(label, "contains of an absent key", () -> store.contains(key), found -> assertEquals(false, found));
      }
      byte[][] keys = kind.records().keySet().stream().map(ByteBuffer::array).toArray(byte[][]::new);
      detected |= answers(label, "getAll", () -> {
        byte[][] values = new byte[keys.length][];
        store.getAll(keys, values);
        return values;
      }, values -> {
        for (int i = 0; i < keys.length; i++) {
          assertArrayEquals(kind.records().get(ByteBuffer.wrap(keys[i])), values[i], "getAll value " + i);
        }
      });
      for (int rank = 0; rank < kind.keyAt().length; rank++) {
        int r = rank;
        detected |= answers(label, "valueAt", () -> store.valueAt(r), value -> assertArrayEquals(kind.valueAt()[r], value));
        if (kind.keepsKeys()) {
          detected |= answers(label, "keyAt", () -> store.keyAt(r), key -> assertArrayEquals(kind.keyAt()[r], key));
        }
      }
      StoreCursor cursor = store.cursor();
      for (int rank = 0; cursor.next(); rank++) {
        int r = rank;
        detected |= answers(label, "cursor.value", cursor::value, value -> assertArrayEquals(kind.valueAt()[r], value));
      }
      boolean verifyFailed = answers(label, "verify", () -> {
        store.verify();
        return null;
      }, nothing -> {});
      if (!verifyFailed && !lie) {
        fail(label + ": verify() passed on a damaged store");
      }
      count(detected ? "opened, damage reported by a lookup" : "opened, every lookup right");
    }
  }

  @FunctionalInterface
  private interface Call<T> {
    T run() throws Exception;
  }

  /** Runs {@code call}: true if it reported damage, else checks its answer. */
  private static <T> boolean answers(String label, String what, Call<T> call, Consumer<T> right) {
    T answer;
    try {
      answer = call.run();
    } catch (CorruptStoreException reported) {
      return true;
    } catch (Throwable t) {
      throw new AssertionError(label + ": " + what + " threw " + t + " instead of CorruptStoreException", t);
    }
    try {
      right.accept(answer);
    } catch (AssertionError wrong) {
      throw new AssertionError(label + ": " + what + " gave a wrong answer without reporting damage: " + wrong.getMessage(), wrong);
    }
    return false;
  }

  /** What happens to the file's bytes. */
  enum Damage {
    BIT_FLIP(true) {
      @Override
      byte[] damage(byte[] bytes, SplittableRandom random) {
        bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
        return bytes;
      }
    },
    CHANGED_BYTE(true) {
      @Override
      byte[] damage(byte[] bytes, SplittableRandom random) {
        bytes[random.nextInt(bytes.length)] += (byte) (1 + random.nextInt(255));
        return bytes;
      }
    },
    OVERWRITTEN_RANGE(true) {
      @Override
      byte[] damage(byte[] bytes, SplittableRandom random) {
        int length = Math.min(bytes.length, 1 + random.nextInt(64));
        int at = random.nextInt(bytes.length - length + 1);
        for (int i = at; i < at + length; i++) {
          bytes[i] = (byte) random.nextInt(256);
        }
        return bytes;
      }
    },
    ZEROED_RANGE(true) {
      @Override
      byte[] damage(byte[] bytes, SplittableRandom random) {
        int length = Math.min(bytes.length, 1 + random.nextInt(4096));
        int at = random.nextInt(bytes.length - length + 1);
        Arrays.fill(bytes, at, at + length, (byte) 0);
        return bytes;
      }
    },
    COPIED_RANGE(true) {
      @Override
      byte[] damage(byte[] bytes, SplittableRandom random) {
        int length = Math.min(bytes.length / 2, 1 + random.nextInt(512));
        int from = random.nextInt(bytes.length - length + 1);
        int to = random.nextInt(bytes.length - length + 1);
        System.arraycopy(bytes.clone(), from, bytes, to, length);
        return bytes;
      }
    },
    TRUNCATED(false) {
      @Override
      byte[] damage(byte[] bytes, SplittableRandom random) {
        return Arrays.copyOf(bytes, random.nextInt(bytes.length));
      }
    },
    APPENDED(false) {
      @Override
      byte[] damage(byte[] bytes, SplittableRandom random) {
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1 + random.nextInt(100));
        for (int i = bytes.length; i < longer.length; i++) {
          longer[i] = (byte) random.nextInt(256);
        }
        return longer;
      }
    };

    private final boolean keepsLength;

    Damage(boolean keepsLength) {
      this.keepsLength = keepsLength;
    }

    boolean keepsLength() {
      return keepsLength;
    }

    byte[] apply(byte[] original, SplittableRandom random) {
      return damage(original.clone(), random);
    }

    abstract byte[] damage(byte[] bytes, SplittableRandom random);
  }
}
