package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.ect.EctParameters;
import io.varve.core.store.RecordChecksum;
import io.varve.core.store.RecordFormat;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreMeta;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongFunction;
import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Builds stores and checks them with {@link StoreFiles}: hash collisions and rehashing, temporary
 * files after success and failure, progress, misuse, and edge cases of sizes.
 */
class StoreBuilderTest {
  private static final long SEED = 0x5B1D_E2L;
  private static final long MIB = 1 << 20;

  @TempDir Path parent;

  private Path target() {
    return parent.resolve("store");
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static ByteBuffer k(byte[] key) {
    return ByteBuffer.wrap(key);
  }

  /** A weak hash: hi = first byte of the key (0 for an empty key), lo = 0; distinct keys collide. */
  static final RecordHasher FIRST_BYTE = (key, offset, length, result) -> {
    result[0] = length == 0 ? 0 : key[offset] & 0xFF;
    result[1] = 0;
  };

  /** The weak hash at {@code weakSeed}, real XXH3 elsewhere. */
  static LongFunction<RecordHasher> weakAt(long weakSeed) {
    return hashingAt(weakSeed, FIRST_BYTE);
  }

  /** {@code hasher} at {@code seed}, real XXH3 elsewhere. */
  static LongFunction<RecordHasher> hashingAt(long seed, RecordHasher hasher) {
    return s -> s == seed ? hasher : RecordHasher.xxh3(s);
  }

  /** Real XXH3, except that at {@code weakSeed} the two given keys share one hash. */
  static LongFunction<RecordHasher> twoKeysCollideAt(long weakSeed, byte[] a, byte[] b) {
    return seed -> {
      RecordHasher real = RecordHasher.xxh3(seed);
      if (seed != weakSeed) {
        return real;
      }
      return (key, offset, length, result) -> {
        if (java.util.Arrays.equals(key, offset, offset + length, b, 0, b.length)) {
          real.hash(a, 0, a.length, result);
        } else {
          real.hash(key, offset, length, result);
        }
      };
    };
  }

  private static byte[] randomKey(SplittableRandom random, int index) {
    // Distinct by construction, with varied first bytes.
    return utf8((char) ('!' + random.nextInt(90)) + "key-" + index + "-" + random.nextInt(1000));
  }

  private static byte[] randomValue(SplittableRandom random, int maxLength) {
    byte[] value = new byte[random.nextInt(maxLength + 1)];
    random.nextBytes(value);
    return value;
  }

  private static void assertContents(Map<ByteBuffer, byte[]> expected, StoreFiles.Contents contents) {
    assertEquals(expected.size(), contents.keys().size(), "record count");
    Map<ByteBuffer, byte[]> got = contents.asMap();
    assertEquals(expected.size(), got.size(), "keys are distinct");
    for (Map.Entry<ByteBuffer, byte[]> e : expected.entrySet()) {
      byte[] value = got.get(e.getKey());
      assertNotNull(value, "missing key " + new String(e.getKey().array(), StandardCharsets.UTF_8));
      assertArrayEquals(e.getValue(), value, "value of " + new String(e.getKey().array(), StandardCharsets.UTF_8));
    }
  }

  /** A builder of the store at {@link #target()} whose memory budget makes it spill, or the default budget. */
  private StoreBuilder builder(boolean spills) throws IOException {
    return StoreBuilder.create(target()).memoryBudget(spills ? StoreBuilder.MIN_MEMORY_BUDGET : StoreBuilder.DEFAULT_MEMORY_BUDGET);
  }

  /** {@link #builder} whose first seed, {@code weakSeed}, hashes by {@link #FIRST_BYTE}: the build must rehash. */
  private StoreBuilder weakBuilder(long weakSeed, boolean spills) throws IOException {
    return builder(spills).seed(weakSeed).hashers(weakAt(weakSeed));
  }

  /** Puts the record into the builder and into {@code expected}, where a later value replaces an earlier one. */
  private static void put(StoreBuilder builder, Map<ByteBuffer, byte[]> expected, byte[] key, byte[] value) throws IOException {
    expected.put(k(key), value);
    builder.put(key, value);
  }

  /** Random bytes of {@code length} (at least 4) that start with {@code number}: every put's value is its own. */
  private static byte[] numberedValue(SplittableRandom random, int length, int number) {
    byte[] value = new byte[length];
    random.nextBytes(value);
    ByteBuffer.wrap(value).putInt(number);
    return value;
  }

  /** Puts {@code n} records of {@link #randomKey} and random values of up to {@code maxValue} bytes. */
  private static void putRandom(StoreBuilder builder, SplittableRandom random, int n, int maxValue) throws IOException {
    for (int i = 0; i < n; i++) {
      builder.put(randomKey(random, i), randomValue(random, maxValue));
    }
  }

  /** Puts {@code n} records of {@link #longKey} and {@code value}. */
  private static void putLongKeys(StoreBuilder builder, int n, byte[] value) throws IOException {
    for (int i = 0; i < n; i++) {
      builder.put(longKey(i), value);
    }
  }

  /** The build found a collision under {@code weakSeed} and succeeded with the next seed. */
  private static void assertRehashedOnce(BuildSummary summary, long weakSeed) {
    assertEquals(2, summary.seedAttempts());
    assertEquals(weakSeed + 1, summary.meta().seed());
  }

  /** The store at {@link #target()} holds exactly {@code expected}, and no temporary file is left. */
  private void assertBuilt(Map<ByteBuffer, byte[]> expected) throws IOException {
    assertContents(expected, StoreFiles.read(target()));
    StoreFiles.assertNoLeftovers(parent);
  }

  /** Putting records ({@code puts}) and building fail with a {@link DuplicateKeyException} naming {@code key}. */
  private static void assertDuplicateReported(StoreBuilder builder, String key, Executable puts) {
    DuplicateKeyException e =
        assertThrows(
            DuplicateKeyException.class,
            () -> {
              puts.execute();
              builder.build();
            });
    assertTrue(e.getMessage().contains("\"" + key + "\""), e.getMessage());
  }

  /** {@code build()} fails with the listener's exception, whose message starts with {@code message}, and leaves nothing. */
  private void assertBuildFailsCleanly(StoreBuilder builder, String message) throws IOException {
    IllegalStateException e = assertThrows(IllegalStateException.class, builder::build);
    assertTrue(e.getMessage().startsWith(message), e.getMessage());
    StoreFiles.assertCleanFailure(target());
  }

  /** Records the progress reports. */
  static final class Recorder implements BuildListener {
    final List<long[]> events = new ArrayList<>();

    @Override
    public void progress(Phase phase, long done, long total) {
      events.add(new long[] {phase.ordinal(), done, total});
    }

    long[] last() {
      return events.get(events.size() - 1);
    }
  }

  /** The last report publishes {@code n} records, after the writing of {@code n} ended. */
  private static void assertFinalWrite(Recorder recorder, long n) {
    long[] last = recorder.last();
    assertArrayEquals(new long[] {BuildListener.Phase.PUBLISH.ordinal(), n, n}, last, "final report PUBLISH(n, n)");
    assertTrue(
        recorder.events.stream().anyMatch(e -> e[0] == BuildListener.Phase.WRITE.ordinal() && e[1] == n && e[2] == n),
        "a report WRITE(n, n)");
  }

  /**
   * The reports a progress bar needs: phases in order, each starting and ending, {@code done}
   * never decreasing within one, the last of each at its total, every phase present.
   */
  static void assertProgressInPhaseOrder(Recorder recorder) {
    int phase = -1;
    long done = -1;
    long[] previous = null;
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (long[] e : recorder.events) {
      assertTrue(e[0] >= phase, "phase order: " + java.util.Arrays.toString(e) + " after " + java.util.Arrays.toString(previous));
      if (e[0] != phase) {
        if (previous != null) {
          assertEquals(previous[2], previous[1], "phase " + previous[0] + " ends at its total");
        }
        phase = (int) e[0];
        done = -1;
      }
      assertTrue(e[1] >= done, "done never decreases: " + java.util.Arrays.toString(e));
      assertTrue(e[2] == -1 || e[1] <= e[2], "done within total: " + java.util.Arrays.toString(e));
      done = e[1];
      previous = e;
      seen.add(phase);
    }
    assertEquals(previous[2], previous[1], "the last phase ends at its total");
    assertEquals(BuildListener.Phase.values().length, seen.size(), "every phase reported");
  }

  // ---------------------------------------------------------------- hash collisions

  @ParameterizedTest(name = "spills={0}")
  @ValueSource(booleans = {false, true})
  void collisionRehashesWithTheNextSeed(boolean spills) throws IOException {
    long weakSeed = SEED + (spills ? 1 : 0);
    int n = spills ? 100_000 : 20_000;
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.collisionRehashesWithTheNextSeed spills=" + spills, weakSeed);
    Map<ByteBuffer, byte[]> expected = new LinkedHashMap<>();
    Recorder recorder = new Recorder();
    BuildSummary summary;
    try (StoreBuilder builder = weakBuilder(weakSeed, spills).listener(recorder)) {
      for (int i = 0; i < n; i++) {
        put(builder, expected, randomKey(random, i), randomValue(random, 20));
      }
      summary = builder.build();
    }
    assertRehashedOnce(summary, weakSeed);
    assertEquals(n, summary.recordsPut());
    assertEquals(0, summary.duplicatesDropped());
    assertEquals(spills, summary.spills() > 0, "spills: " + summary.spills());
    StoreFiles.Contents contents = StoreFiles.read(target());
    assertEquals(weakSeed + 1, contents.meta().seed());
    assertEquals(summary.meta(), contents.meta());
    assertContents(expected, contents);
    assertFinalWrite(recorder, n);
    StoreFiles.assertNoLeftovers(parent);
  }

  @ParameterizedTest(name = "spills={0}")
  @ValueSource(booleans = {false, true})
  void collisionWithLastWinsDuplicatesKeepsTheLastValue(boolean spills) throws IOException {
    long weakSeed = SEED + 10 + (spills ? 1 : 0);
    int puts = spills ? 100_000 : 30_000;
    SplittableRandom random =
        TestRecords.seeded("StoreBuilderTest.collisionWithLastWinsDuplicatesKeepsTheLastValue spills=" + spills, weakSeed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    List<byte[]> keys = new ArrayList<>();
    BuildSummary summary;
    try (StoreBuilder builder = weakBuilder(weakSeed, spills).duplicates(DuplicatePolicy.LAST_WINS)) {
      for (int i = 0; i < puts; i++) {
        byte[] key;
        if (!keys.isEmpty() && random.nextInt(3) == 0) {
          // A repeat: of a recent key (same buffer) or of any earlier one (across spills).
          int j = random.nextBoolean() ? keys.size() - 1 - random.nextInt(Math.min(keys.size(), 50)) : random.nextInt(keys.size());
          key = keys.get(j);
        } else {
          key = randomKey(random, i);
          keys.add(key);
        }
        put(builder, expected, key, utf8("put-" + i)); // every put has its own value
      }
      summary = builder.build();
    }
    assertRehashedOnce(summary, weakSeed);
    assertEquals(puts, summary.recordsPut());
    assertEquals(puts - expected.size(), summary.duplicatesDropped());
    assertEquals(spills, summary.spills() > 0);
    assertBuilt(expected);
  }

  /**
   * Records of a few hundred bytes, spilled by two threads (each for half the partitions), with
   * repeated keys near and far under LAST_WINS and a collision under the first seed: the last value
   * of each key survives, as with one spilling thread.
   */
  @ParameterizedTest(name = "collision={0}")
  @ValueSource(booleans = {false, true})
  void largeRecordsSpilledByTwoThreadsKeepTheLastValue(boolean collision) throws IOException {
    long seed = SEED + (collision ? 51 : 50);
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.largeRecordsSpilledByTwoThreadsKeepTheLastValue collision=" + collision, seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    List<byte[]> keys = new ArrayList<>();
    int puts = 30_000;
    BuildSummary summary;
    try (StoreBuilder builder = (collision ? weakBuilder(seed, true) : builder(true)).duplicates(DuplicatePolicy.LAST_WINS)) {
      for (int i = 0; i < puts; i++) {
        byte[] key;
        if (keys.size() > 10 && random.nextInt(4) == 0) {
          int j = random.nextBoolean() ? keys.size() - 1 - random.nextInt(10) : random.nextInt(keys.size());
          key = keys.get(j);
        } else {
          key = randomKey(random, i);
          keys.add(key);
        }
        put(builder, expected, key, numberedValue(random, 300 + random.nextInt(400), i));
      }
      summary = builder.build();
    }
    if (collision) {
      assertRehashedOnce(summary, seed);
    }
    assertTrue(summary.spills() > 5, "spilled " + summary.spills());
    assertEquals(puts - expected.size(), summary.duplicatesDropped());
    assertBuilt(expected);
  }

  /** Fixed-size records, duplicates across spills (second writing pass) and a collision at once. */
  @Test
  void collisionWithFixedSizeRecordsAndDuplicatesAcrossSpills() throws IOException {
    long weakSeed = SEED + 20;
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.collisionWithFixedSizeRecordsAndDuplicatesAcrossSpills", weakSeed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    List<byte[]> keys = new ArrayList<>();
    int puts = 60_000;
    BuildSummary summary;
    try (StoreBuilder builder = weakBuilder(weakSeed, true).duplicates(DuplicatePolicy.LAST_WINS)) {
      for (int i = 0; i < puts; i++) {
        byte[] key;
        if (keys.size() > 100 && random.nextInt(5) == 0) {
          key = keys.get(random.nextInt(keys.size()));
        } else {
          key = new byte[16];
          random.nextBytes(key);
          keys.add(key);
        }
        put(builder, expected, key, ByteBuffer.allocate(8).putLong(i).array());
      }
      summary = builder.build();
    }
    assertRehashedOnce(summary, weakSeed);
    assertTrue(summary.spills() > 1);
    assertEquals(puts - expected.size(), summary.duplicatesDropped());
    StoreMeta meta = summary.meta();
    assertTrue(meta.isFixedSize());
    assertEquals(RecordFormat.fixedPayloadBytes(expected.size(), 24 + RecordChecksum.BYTES, meta.pageBytes()), meta.dataBytes());
    assertBuilt(expected);
  }

  /**
   * Two distinct keys collide among otherwise sound hashes, put close together (one buffer) or far
   * apart (different spills, or a spill and the last buffer): only the writing pass sees them
   * together, and must rehash before the index gets the equal hashes.
   */
  @ParameterizedTest(name = "secondKeyAt={0}")
  @ValueSource(ints = {1, 30_000, 59_999})
  void collisionSeenOnlyByTheFinalMerge(int secondAt) throws IOException {
    long weakSeed = SEED + 30;
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.collisionSeenOnlyByTheFinalMerge secondAt=" + secondAt, weakSeed + secondAt);
    byte[] a = utf8("collide-A");
    byte[] b = utf8("collide-B");
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    Recorder recorder = new Recorder();
    int n = 60_000;
    BuildSummary summary;
    try (StoreBuilder builder = builder(true).seed(weakSeed).listener(recorder).hashers(twoKeysCollideAt(weakSeed, a, b))) {
      for (int i = 0; i < n; i++) {
        put(builder, expected, i == 0 ? a : i == secondAt ? b : randomKey(random, i), randomValue(random, 30));
      }
      summary = builder.build();
    }
    assertTrue(summary.spills() > 1);
    assertRehashedOnce(summary, weakSeed);
    assertBuilt(expected);
    assertFinalWrite(recorder, n);
  }

  @ParameterizedTest(name = "spills={0}")
  @ValueSource(booleans = {false, true})
  void collisionUnderEverySeedFailsCleanly(boolean spills) throws IOException {
    long seed = SEED + 40;
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.collisionUnderEverySeedFailsCleanly spills=" + spills, seed);
    AtomicInteger hashersMade = new AtomicInteger();
    try (StoreBuilder builder =
        builder(spills)
            .seed(seed)
            .hashers(s -> {
              hashersMade.incrementAndGet();
              return FIRST_BYTE;
            })) {
      putRandom(builder, random, spills ? 20_000 : 1000, 40);
      IOException e = assertThrows(IOException.class, builder::build);
      assertTrue(e.getMessage().contains("128-bit hash") && e.getMessage().contains("8 seeds"), e.getMessage());
      assertEquals(8, hashersMade.get(), "one hasher per attempt");
      StoreFiles.assertCleanFailure(target());
      assertThrows(IllegalStateException.class, builder::build, "build() only once");
    }
    StoreFiles.assertCleanFailure(target());
  }

  /**
   * A failure while the records move to the next seed (here the new seed's hasher throws, as a
   * stand-in for a failing disk) must not leave the new pipeline's files or thread behind.
   */
  @Test
  void failureDuringRehashLeavesNothing() throws IOException {
    long weakSeed = SEED + 45;
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.failureDuringRehashLeavesNothing", weakSeed);
    byte[] poison = utf8("poison");
    LongFunction<RecordHasher> hashers =
        seed -> {
          if (seed == weakSeed) {
            return FIRST_BYTE;
          }
          RecordHasher real = RecordHasher.xxh3(seed);
          return (key, offset, length, result) -> {
            if (java.util.Arrays.equals(key, offset, offset + length, poison, 0, poison.length)) {
              throw new IllegalStateException("hasher fails on the poison key");
            }
            real.hash(key, offset, length, result);
          };
        };
    try (StoreBuilder builder = builder(true).seed(weakSeed).hashers(hashers)) {
      putRandom(builder, random, 60_000, 40);
      builder.put(poison, utf8("last"));
      IllegalStateException e = assertThrows(IllegalStateException.class, builder::build);
      assertEquals("hasher fails on the poison key", e.getMessage());
      StoreFiles.assertCleanFailure(target());
    }
    StoreFiles.assertCleanFailure(target());
    // A shut-down pool's thread may take a moment to exit; a leaked idle one never does.
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals("varve-build")) {
        try {
          t.join(10_000);
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
        assertFalse(t.isAlive(), "a build thread is still alive");
      }
    }
  }

  // ---------------------------------------------------------------- temporary files

  @Test
  void noLeftoversAfterSuccessWithSpills() throws IOException {
    long seed = SEED + 50;
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.noLeftoversAfterSuccessWithSpills", seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    BuildSummary summary;
    try (StoreBuilder builder = builder(true)) {
      for (int i = 0; i < 60_000; i++) {
        put(builder, expected, randomKey(random, i), randomValue(random, 60));
      }
      summary = builder.build();
      StoreFiles.assertNoLeftovers(parent);
    }
    assertTrue(summary.spills() > 1);
    assertEquals(1, summary.seedAttempts());
    assertEquals(target(), summary.directory());
    assertBuilt(expected);
    try (var list = Files.list(parent)) {
      assertEquals(List.of(target()), list.toList(), "only the store in the parent");
    }
  }

  @Test
  void separateTemporaryDirectoryIsCleaned() throws IOException {
    Path tmp = Files.createDirectory(parent.resolve("tmp"));
    SplittableRandom random = new SplittableRandom(SEED + 51);
    try (StoreBuilder builder = builder(true).temporaryDirectory(tmp)) {
      putRandom(builder, random, 40_000, 40);
      assertTrue(builder.build().spills() > 0);
    }
    StoreFiles.assertNoLeftovers(tmp);
    StoreFiles.assertNoLeftovers(parent);
    StoreFiles.read(target());
  }

  @ParameterizedTest(name = "where={0}")
  @ValueSource(strings = {"sameBuffer", "acrossSpills", "memoryOnly"})
  void duplicateUnderFailLeavesNothing(String where) throws IOException {
    long seed = SEED + 60 + where.length();
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.duplicateUnderFailLeavesNothing where=" + where, seed);
    boolean spills = !where.equals("memoryOnly");
    int n = spills ? 60_000 : 5000;
    byte[] duplicated = utf8("the-duplicate");
    try (StoreBuilder builder = builder(spills)) {
      assertDuplicateReported(
          builder,
          "the-duplicate",
          () -> {
            for (int i = 0; i < n; i++) {
              boolean dup =
                  switch (where) {
                    case "sameBuffer" -> i == 10 || i == 20;
                    case "acrossSpills" -> i == 0 || i == n - 1;
                    default -> i == 100 || i == 4000;
                  };
              builder.put(dup ? duplicated : randomKey(random, i), randomValue(random, 40));
            }
          });
      if (!where.equals("sameBuffer")) {
        // Thrown by build(), which cleans up before it returns.
        StoreFiles.assertCleanFailure(target());
      }
    }
    StoreFiles.assertCleanFailure(target());
  }

  @Test
  void closeWithoutBuildLeavesNothing() throws IOException {
    SplittableRandom random = new SplittableRandom(SEED + 70);
    try (StoreBuilder builder = builder(true)) {
      putRandom(builder, random, 60_000, 40);
      assertFalse(StoreFiles.leftovers(parent).isEmpty(), "spill files exist before close()");
    }
    StoreFiles.assertCleanFailure(target());
    try (StoreBuilder builder = StoreBuilder.create(target())) {
      builder.put(utf8("a"), utf8("b"));
    }
    StoreFiles.assertCleanFailure(target());
    StoreBuilder unused = StoreBuilder.create(target());
    unused.close();
    unused.close(); // idempotent
    StoreFiles.assertCleanFailure(target());
  }

  /** A listener that throws at a chosen report. */
  static final class Thrower implements BuildListener {
    final Phase phase;
    final boolean onlyFinal;

    Thrower(Phase phase, boolean onlyFinal) {
      this.phase = phase;
      this.onlyFinal = onlyFinal;
    }

    @Override
    public void progress(Phase p, long done, long total) {
      if (p == phase && (!onlyFinal || done == total)) {
        throw new IllegalStateException("listener fails at " + p + " " + done + "/" + total);
      }
    }
  }

  private static final int OVER_ONE_REPORT = (1 << 20) + 3;

  private static byte[] longKey(long i) {
    return ByteBuffer.allocate(8).putLong(i * 0x9E37_79B9_7F4A_7C15L).array();
  }

  @Test
  void listenerThrowingDuringInputLeavesNothing() throws IOException {
    try (StoreBuilder builder = builder(true).listener(new Thrower(BuildListener.Phase.INPUT, false))) {
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> putLongKeys(builder, OVER_ONE_REPORT, new byte[0]));
      assertTrue(e.getMessage().startsWith("listener fails at INPUT 65536/-1"), e.getMessage());
    }
    StoreFiles.assertCleanFailure(target());
  }

  @Test
  void listenerThrowingDuringWriteLeavesNothing() throws IOException {
    try (StoreBuilder builder =
        StoreBuilder.create(target())
            .memoryBudget(16 * MIB) // spills: temporary files and the staging directory exist
            .listener(new Thrower(BuildListener.Phase.WRITE, false))) {
      putLongKeys(builder, OVER_ONE_REPORT, new byte[0]);
      assertBuildFailsCleanly(builder, "listener fails at WRITE 65536/" + OVER_ONE_REPORT);
    }
    StoreFiles.assertCleanFailure(target());
  }

  /** The final report comes from inside build(): if it throws, build() fails and must publish nothing. */
  @Test
  void listenerThrowingAtTheFinalReportLeavesNothing() throws IOException {
    try (StoreBuilder builder = StoreBuilder.create(target()).listener(new Thrower(BuildListener.Phase.WRITE, true))) {
      putLongKeys(builder, 1000, new byte[] {1});
      assertBuildFailsCleanly(builder, "listener fails at WRITE 1000/1000");
    }
    StoreFiles.assertCleanFailure(target());
  }

  /** The end-of-input report, the first of build(): if it throws, the spilled files go at once. */
  @Test
  void listenerThrowingAtTheEndOfInputLeavesNothing() throws IOException {
    try (StoreBuilder builder = builder(true).listener(new Thrower(BuildListener.Phase.INPUT, true))) {
      putLongKeys(builder, 100_000, new byte[] {1});
      assertFalse(StoreFiles.leftovers(parent).isEmpty(), "spill files exist before build()");
      assertBuildFailsCleanly(builder, "listener fails at INPUT 100000/100000");
    }
    StoreFiles.assertCleanFailure(target());
  }

  @Test
  void targetAppearingDuringTheBuildFailsCleanly() throws IOException {
    SplittableRandom random = new SplittableRandom(SEED + 80);
    try (StoreBuilder builder = builder(true)) {
      putRandom(builder, random, 30_000, 40);
      Files.createDirectory(target());
      Files.writeString(target().resolve("someone-else"), "x");
      assertThrows(FileAlreadyExistsException.class, builder::build);
      StoreFiles.assertNoLeftovers(parent);
    }
    StoreFiles.assertNoLeftovers(parent);
    assertTrue(Files.exists(target().resolve("someone-else")), "another's directory is left alone");
  }

  /**
   * The target appears after the last check of build() but before publication (created here by
   * the listener's final report): build() must fail with FileAlreadyExistsException and leave the
   * other party's file or empty directory alone, not replace it.
   */
  @ParameterizedTest(name = "appears={0}")
  @ValueSource(strings = {"emptyDirectory", "file"})
  void targetAppearingJustBeforePublicationIsNotReplaced(String appears) throws IOException {
    Path target = target();
    BuildListener creator =
        (phase, done, total) -> {
          if (phase == BuildListener.Phase.WRITE && done == total) {
            try {
              if (appears.equals("file")) {
                Files.writeString(target, "someone else's");
              } else {
                Files.createDirectory(target);
              }
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          }
        };
    try (StoreBuilder builder = StoreBuilder.create(target).listener(creator)) {
      for (int i = 0; i < 100; i++) {
        builder.put(longKey(i), utf8("v" + i));
      }
      assertThrows(FileAlreadyExistsException.class, builder::build);
    }
    StoreFiles.assertNoLeftovers(parent);
    if (appears.equals("file")) {
      assertEquals("someone else's", Files.readString(target));
    } else {
      assertTrue(Files.isDirectory(target));
      try (var list = Files.list(target)) {
        assertEquals(0, list.count(), "the empty directory was not replaced by the store");
      }
    }
  }

  // ---------------------------------------------------------------- progress

  /**
   * A million-record build reports often enough for a progress bar: every 2^16 records while
   * taking input and writing, each phase from its start to its total, in phase order.
   */
  @Test
  void progressReportsOftenInPhaseOrder() throws IOException {
    Recorder recorder = new Recorder();
    int n = 1_000_000;
    BuildSummary summary;
    try (StoreBuilder builder = StoreBuilder.create(target()).memoryBudget(16 * MIB).listener(recorder)) {
      for (int i = 0; i < n; i++) {
        builder.put(longKey(i), new byte[0]);
        if (i == BuildListener.INTERVAL - 2) {
          assertTrue(recorder.events.isEmpty(), "no report before 2^16 records");
        }
      }
      assertEquals(n / BuildListener.INTERVAL, recorder.events.size(), "an INPUT report every 2^16 records");
      for (int k = 0; k < recorder.events.size(); k++) {
        assertArrayEquals(
            new long[] {BuildListener.Phase.INPUT.ordinal(), (k + 1L) * BuildListener.INTERVAL, -1}, recorder.events.get(k));
      }
      summary = builder.build();
    }
    assertTrue(summary.spills() > 0, "the build spilled: " + summary.spills());
    assertEquals(n, summary.meta().recordCount());
    assertProgressInPhaseOrder(recorder);
    long writes = recorder.events.stream().filter(e -> e[0] == BuildListener.Phase.WRITE.ordinal()).count();
    assertTrue(writes >= n / BuildListener.INTERVAL, "WRITE reports: " + writes);
    assertTrue(recorder.events.size() >= 2 * (n / BuildListener.INTERVAL), "reports: " + recorder.events.size());
    assertFinalWrite(recorder, n);
    StoreFiles.Contents contents = StoreFiles.read(target());
    assertEquals(n, contents.keys().size());
    assertTrue(contents.meta().isFixedSize());
  }

  /** Dropped duplicates: the WRITE phase counts the records put, and still ends at its total. */
  @Test
  void progressWithDuplicatesStaysInOrder() throws IOException {
    Recorder recorder = new Recorder();
    int n = 300_000;
    try (StoreBuilder builder = builder(true).duplicates(DuplicatePolicy.LAST_WINS).listener(recorder)) {
      for (int i = 0; i < n; i++) {
        builder.put(longKey(i % 100_000), utf8("v" + i));
      }
      assertEquals(100_000, builder.build().meta().recordCount());
    }
    assertProgressInPhaseOrder(recorder);
    assertArrayEquals(new long[] {BuildListener.Phase.PUBLISH.ordinal(), 100_000, 100_000}, recorder.last());
  }

  // ---------------------------------------------------------------- misuse

  @Test
  void putAfterBuildOrCloseIsRefused() throws IOException {
    StoreBuilder builder = StoreBuilder.create(target());
    builder.put(utf8("k"), utf8("v"));
    builder.build();
    assertThrows(IllegalStateException.class, () -> builder.put(utf8("k2"), utf8("v")));
    assertThrows(IllegalStateException.class, builder::build);
    assertThrows(IllegalStateException.class, () -> builder.metadata("a", "b"));
    builder.close();
    assertThrows(IllegalStateException.class, () -> builder.put(utf8("k2"), utf8("v")));

    StoreBuilder closed = StoreBuilder.create(parent.resolve("other"));
    closed.close();
    assertThrows(IllegalStateException.class, () -> closed.put(utf8("k"), utf8("v")));
    assertThrows(IllegalStateException.class, closed::build);
    assertThrows(IllegalStateException.class, () -> closed.memoryBudget(StoreBuilder.DEFAULT_MEMORY_BUDGET));
    assertFalse(Files.exists(parent.resolve("other")));
  }

  @Test
  void configuringAfterTheFirstPutIsRefused() throws IOException {
    try (StoreBuilder builder = StoreBuilder.create(target())) {
      builder.put(utf8("k"), utf8("v"));
      assertThrows(IllegalStateException.class, () -> builder.memoryBudget(StoreBuilder.DEFAULT_MEMORY_BUDGET));
      assertThrows(IllegalStateException.class, () -> builder.duplicates(DuplicatePolicy.LAST_WINS));
      assertThrows(IllegalStateException.class, () -> builder.seed(1));
      assertThrows(IllegalStateException.class, () -> builder.indexParameters(StoreBuilder.DEFAULT_INDEX));
      assertThrows(IllegalStateException.class, () -> builder.temporaryDirectory(parent));
      assertThrows(IllegalStateException.class, () -> builder.listener(BuildListener.NONE));
      assertThrows(IllegalStateException.class, () -> builder.hashers(RecordHasher::xxh3));
      assertThrows(IllegalStateException.class, () -> builder.pageAlignment(0));
      builder.metadata("still", "allowed");
      BuildSummary summary = builder.build();
      assertEquals("allowed", summary.meta().userMetadata().get("still"));
    }
    assertEquals("allowed", StoreFiles.read(target()).meta().userMetadata().get("still"));
  }

  @Test
  void invalidArguments() throws IOException {
    try (StoreBuilder builder = StoreBuilder.create(target())) {
      assertThrows(IllegalArgumentException.class, () -> builder.memoryBudget(StoreBuilder.MIN_MEMORY_BUDGET - 1));
      assertThrows(IllegalArgumentException.class, () -> builder.memoryBudget(0));
      assertThrows(IllegalArgumentException.class, () -> builder.memoryBudget(-1));
      for (int page : new int[] {-1, 1, 256, 1000, 8192}) {
        assertThrows(IllegalArgumentException.class, () -> builder.pageAlignment(page), "page " + page);
      }
      builder.memoryBudget(StoreBuilder.MIN_MEMORY_BUDGET);
      assertThrows(NullPointerException.class, () -> builder.duplicates(null));
      assertThrows(NullPointerException.class, () -> builder.listener(null));
      assertThrows(NullPointerException.class, () -> builder.indexParameters(null));
      assertThrows(NullPointerException.class, () -> builder.put(null, utf8("v")));
      assertThrows(NullPointerException.class, () -> builder.put(utf8("k"), null));
      assertThrows(IndexOutOfBoundsException.class, () -> builder.put(utf8("k"), 0, 2, utf8("v"), 0, 1));
      assertThrows(IndexOutOfBoundsException.class, () -> builder.put(utf8("k"), 0, 1, utf8("v"), -1, 1));
      assertEquals(0, builder.recordsPut());
      // Refused puts did not start the build: configuring is still possible.
      builder.duplicates(DuplicatePolicy.LAST_WINS);
      builder.put(utf8("key"), 1, 2, utf8("xvaluex"), 1, 5);
      assertEquals(1, builder.recordsPut());
      builder.build();
    }
    StoreFiles.Contents contents = StoreFiles.read(target());
    assertArrayEquals(utf8("ey"), contents.keys().get(0));
    assertArrayEquals(utf8("value"), contents.values().get(0));
  }

  @Test
  void targetMustNotExistAndParentMust() throws IOException {
    Files.createDirectory(target());
    assertThrows(FileAlreadyExistsException.class, () -> StoreBuilder.create(target()));
    Files.delete(target());
    Files.writeString(target(), "a file");
    assertThrows(FileAlreadyExistsException.class, () -> StoreBuilder.create(target()));
    assertThrows(NoSuchFileException.class, () -> StoreBuilder.create(parent.resolve("missing").resolve("store")));
    assertThrows(NoSuchFileException.class, () -> StoreBuilder.create(target().resolve("store")), "parent is a file");
  }

  // ---------------------------------------------------------------- sizes

  @Test
  void zeroRecords() throws IOException {
    BuildSummary summary;
    Recorder recorder = new Recorder();
    try (StoreBuilder builder = StoreBuilder.create(target()).listener(recorder)) {
      summary = builder.build();
    }
    assertEquals(0, summary.meta().recordCount());
    assertEquals(0, summary.recordsPut());
    StoreFiles.Contents contents = StoreFiles.read(target());
    assertEquals(0, contents.keys().size());
    assertFalse(contents.meta().isFixedSize());
    assertEquals(0, contents.meta().dataBytes());
    assertFinalWrite(recorder, 0);
    StoreFiles.assertNoLeftovers(parent);
  }

  @Test
  void oneRecord() throws IOException {
    try (StoreBuilder builder = StoreBuilder.create(target())) {
      builder.put(utf8("only"), utf8("one"));
      assertEquals(1, builder.build().meta().recordCount());
    }
    StoreFiles.Contents contents = StoreFiles.read(target());
    assertArrayEquals(utf8("only"), contents.keys().get(0));
    assertArrayEquals(utf8("one"), contents.values().get(0));
    assertTrue(contents.meta().isFixedSize(), "one record is trivially fixed-size");
    assertEquals(4, contents.meta().keyLength());
    assertEquals(3, contents.meta().valueLength());
  }

  @Test
  void emptyKeyAndValue() throws IOException {
    try (StoreBuilder builder = StoreBuilder.create(target())) {
      builder.put(new byte[0], new byte[0]);
      builder.build();
    }
    StoreFiles.Contents contents = StoreFiles.read(target());
    assertEquals(1, contents.keys().size());
    assertEquals(0, contents.keys().get(0).length);
    assertEquals(0, contents.values().get(0).length);
    assertEquals(RecordChecksum.BYTES, contents.meta().dataBytes(), "an empty record is its checksum alone");

    Path mixed = parent.resolve("mixed");
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    try (StoreBuilder builder = StoreBuilder.create(mixed)) {
      expected.put(k(new byte[0]), utf8("value of the empty key"));
      expected.put(k(utf8("empty value")), new byte[0]);
      expected.put(k(utf8("x")), utf8("y"));
      for (Map.Entry<ByteBuffer, byte[]> e : expected.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    StoreFiles.Contents mixedContents = StoreFiles.read(mixed);
    assertFalse(mixedContents.meta().isFixedSize());
    assertContents(expected, mixedContents);
  }

  @ParameterizedTest(name = "spills={0} page={1}")
  @org.junit.jupiter.params.provider.CsvSource({"false, 4096", "true, 4096", "false, 0", "true, 512"})
  void fixedSizeRecordsHaveNoOffsetsFile(boolean spills, int page) throws IOException {
    long seed = SEED + 90;
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.fixedSizeRecordsHaveNoOffsetsFile spills=" + spills + " page=" + page, seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    BuildSummary summary;
    try (StoreBuilder builder = builder(spills).pageAlignment(page).indexParameters(new EctParameters(16, 8, 1))) {
      while (expected.size() < 50_000) {
        byte[] key = new byte[16];
        random.nextBytes(key);
        byte[] value = new byte[8];
        random.nextBytes(value);
        if (expected.put(k(key), value) == null) {
          builder.put(key, value);
        }
      }
      summary = builder.build();
    }
    assertEquals(spills, summary.spills() > 0);
    StoreMeta meta = summary.meta();
    assertTrue(meta.isFixedSize());
    assertEquals(16, meta.keyLength());
    assertEquals(8, meta.valueLength());
    assertEquals(RecordFormat.fixedPayloadBytes(50_000, 24 + RecordChecksum.BYTES, meta.pageBytes()), meta.dataBytes());
    assertEquals(new EctParameters(16, 8, 1), meta.indexParameters());
    assertEquals(page, meta.pageBytes());
    assertFalse(Files.exists(target().resolve(StoreFile.OFFSETS.fileName())));
    assertContents(expected, StoreFiles.read(target()));
  }

  /** Hashes crowded at both ends are no harm to pages, the default for variable sizes: the frames follow the hashes. */
  @Test
  void hashesCrowdedAtBothEndsArePagedByDefault() throws IOException {
    long seed = SEED + 95;
    RecordHasher twoClusters = xxh3WithHi(seed, hi -> (hi & 1) == 0 ? hi >>> 30 : ~(hi >>> 30));
    SplittableRandom random = new SplittableRandom(seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    try (StoreBuilder builder = StoreBuilder.create(target()).seed(seed).hashers(hashingAt(seed, twoClusters))) {
      for (int i = 0; i < 50_000; i++) {
        put(builder, expected, randomKey(random, i), new byte[random.nextInt(20)]);
      }
      builder.build();
    }
    StoreFiles.Contents contents = StoreFiles.read(target(), hashingAt(seed, twoClusters).apply(seed));
    assertTrue(contents.meta().isPaged());
    assertContents(expected, contents);
  }

  @ParameterizedTest(name = "page={0}")
  @ValueSource(ints = {512, 4096})
  void mixedSizesArePagedByDefault(int page) throws IOException {
    long seed = SEED + 92;
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.mixedSizesArePagedByDefault page=" + page, seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    try (StoreBuilder builder = StoreBuilder.create(target()).pageAlignment(page)) {
      for (int i = 0; i < 10_000; i++) {
        byte[] key = new byte[16];
        random.nextBytes(key);
        // Some records larger than a page, some crossing pages, some empty.
        byte[] value = new byte[i % 500 == 7 ? 600 + random.nextInt(5000) : i % 97 == 5 ? page / 4 : i % 700 == 3 ? 0 : 8];
        random.nextBytes(value);
        put(builder, expected, key, value);
      }
      builder.build();
    }
    StoreFiles.Contents contents = StoreFiles.read(target());
    assertTrue(contents.meta().isPaged());
    assertEquals(page, contents.meta().pageBytes());
    assertFalse(Files.exists(target().resolve(StoreFile.OFFSETS.fileName())));
    assertFalse(Files.exists(target().resolve(StoreFile.INDEX.fileName())));
    assertContents(expected, contents);
  }

  /** Records not aligned to pages, or asked for a rank index, get offsets. */
  @ParameterizedTest(name = "page={0}")
  @ValueSource(ints = {0, 512, 4096})
  void mixedSizesHaveAnOffsetsFile(int page) throws IOException {
    long seed = SEED + 91;
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.mixedSizesHaveAnOffsetsFile page=" + page, seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    try (StoreBuilder builder =
        StoreBuilder.create(target()).pageAlignment(page).indexParameters(page == 0 ? StoreBuilder.DEFAULT_INDEX : BlockedIndexParameters.DEFAULT)) {
      for (int i = 0; i < 10_000; i++) {
        byte[] key = new byte[16];
        random.nextBytes(key);
        // A single odd size suffices; some records larger than a page, some empty.
        byte[] value = new byte[i == 5000 ? 9 : i % 500 == 7 ? 600 + random.nextInt(5000) : i % 700 == 3 ? 0 : 8];
        random.nextBytes(value);
        put(builder, expected, key, value);
      }
      builder.build();
    }
    StoreFiles.Contents contents = StoreFiles.read(target());
    assertFalse(contents.meta().isFixedSize());
    assertEquals(page, contents.meta().pageBytes());
    assertEquals(-1, contents.meta().keyLength());
    assertTrue(Files.exists(target().resolve(StoreFile.OFFSETS.fileName())));
    assertContents(expected, contents);
  }

  /** A record larger than the whole budget is accepted and lands in the store. */
  @Test
  void recordLargerThanTheBudget() throws IOException {
    long seed = SEED + 92;
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.recordLargerThanTheBudget", seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    try (StoreBuilder builder = builder(true)) {
      for (int i = 0; i < 20_000; i++) {
        byte[] key = randomKey(random, i);
        byte[] value = i % 7000 == 3 ? new byte[3 << 20] : randomValue(random, 50);
        random.nextBytes(value);
        put(builder, expected, key, value);
      }
      assertTrue(builder.build().spills() > 2);
    }
    assertBuilt(expected);
  }

  /**
   * Hashes whose top 20 bits are all zero put every record into one hash-prefix partition, larger
   * than memory: it is split (twice) by the following bits; "last wins" still holds.
   */
  @Test
  void skewedHashesSplitOversizedPartitions() throws IOException {
    long seed = SEED + 93;
    RecordHasher skewed = skewed(seed);
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.skewedHashesSplitOversizedPartitions", seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    List<byte[]> keys = new ArrayList<>();
    BuildSummary summary;
    int puts = 4000; // few keys: the index of skewed hashes is slow to query
    try (StoreBuilder builder = builder(true).duplicates(DuplicatePolicy.LAST_WINS).seed(seed).hashers(hashingAt(seed, skewed))) {
      for (int i = 0; i < puts; i++) {
        byte[] key;
        if (!keys.isEmpty() && random.nextInt(10) == 0) {
          key = keys.get(random.nextInt(keys.size()));
        } else {
          key = randomKey(random, i);
          keys.add(key);
        }
        put(builder, expected, key, randomValue(random, 2000)); // ~4 MB in all, more than memory
      }
      summary = builder.build();
    }
    assertEquals(1, summary.seedAttempts());
    assertTrue(summary.spills() > 2);
    assertEquals(puts - expected.size(), summary.duplicatesDropped());
    assertContents(expected, StoreFiles.read(target(), skewed));
    StoreFiles.assertNoLeftovers(parent);
  }

  /**
   * Hashes that share their top 40 bits (a shard routed by them, many times over): the store maps
   * their range over the whole space, so the default blocked index builds (it failed before, with
   * "more than 65535 keys in one group of blocks") and ranks every key.
   */
  @Test
  void hashesInANarrowRangeBuildTheDefaultIndex() throws IOException {
    long seed = SEED + 94;
    RecordHasher narrow = xxh3WithHi(seed, hi -> 0x1234_5678_9A00_0000L | hi >>> 40);
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.hashesInANarrowRangeBuildTheDefaultIndex", seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    BuildSummary summary;
    try (StoreBuilder builder = StoreBuilder.create(target()).seed(seed).hashers(hashingAt(seed, narrow))) {
      while (expected.size() < 100_000) {
        byte[] key = randomKey(random, expected.size());
        byte[] value = randomValue(random, 12);
        if (expected.putIfAbsent(k(key), value) == null) {
          builder.put(key, value);
        }
      }
      summary = builder.build();
    }
    assertTrue(summary.meta().hashRange().shift() >= 24, summary.meta().hashRange().toString());
    assertContents(expected, StoreFiles.read(target(), narrow));
    StoreFiles.assertNoLeftovers(parent);
  }

  /**
   * Hashes crowded at both ends of the space span all of it, so no range map spreads them: the
   * build fails with advice (another seed, or an ECT index), never "are the keys hashed?", and
   * leaves nothing behind.
   */
  @Test
  void hashesCrowdedAtBothEndsFailWithAdvice() throws IOException {
    long seed = SEED + 95;
    RecordHasher twoClusters = xxh3WithHi(seed, hi -> (hi & 1) == 0 ? hi >>> 30 : ~(hi >>> 30));
    SplittableRandom random = new SplittableRandom(seed);
    IllegalArgumentException e;
    try (StoreBuilder builder =
        StoreBuilder.create(target()).seed(seed).hashers(hashingAt(seed, twoClusters)).indexParameters(StoreBuilder.DEFAULT_INDEX)) {
      for (int i = 0; i < 150_000; i++) {
        builder.put(randomKey(random, i), new byte[4]);
      }
      e = assertThrows(IllegalArgumentException.class, builder::build);
    }
    System.out.println("StoreBuilderTest crowded: " + e.getMessage());
    assertTrue(e.getMessage().contains("another seed") && e.getMessage().contains("ECT index"), e.getMessage());
    assertTrue(e.getCause() instanceof io.varve.core.blocked.CrowdedHashesException);
    StoreFiles.assertCleanFailure(target());
  }

  /** XXH3 with the top 20 bits of hi cleared. */
  static RecordHasher skewed(long seed) {
    return xxh3WithHi(seed, hi -> hi >>> 20);
  }

  /** XXH3 of {@code seed} with the high half of each hash mapped by {@code hi}: hashes crowded as a test needs. */
  static RecordHasher xxh3WithHi(long seed, LongUnaryOperator hi) {
    RecordHasher real = RecordHasher.xxh3(seed);
    return (key, offset, length, result) -> {
      real.hash(key, offset, length, result);
      result[0] = hi.applyAsLong(result[0]);
    };
  }

  /**
   * One key put over and over, its records together larger than the memory budget (all with one
   * hash, so no partitioning can divide them): under LAST_WINS the build keeps the last value. With
   * a collision under the first seed (the weak hash), the repeats dropped before the collision was
   * found stay counted after the rehash.
   */
  @ParameterizedTest(name = "collision={0}")
  @ValueSource(booleans = {false, true})
  void hotKeyRepeatedBeyondMemoryUnderLastWins(boolean collision) throws IOException {
    long seed = SEED + (collision ? 95 : 94);
    SplittableRandom random = TestRecords.seeded("StoreBuilderTest.hotKeyRepeatedBeyondMemoryUnderLastWins collision=" + collision, seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    byte[] hot = utf8("hot-key");
    int puts = collision ? 40_000 : 60_000;
    BuildSummary summary;
    try (StoreBuilder builder = (collision ? weakBuilder(seed, true) : builder(true)).duplicates(DuplicatePolicy.LAST_WINS)) {
      for (int i = 0; i < puts; i++) {
        byte[] key = i % 2 == 0 ? hot : randomKey(random, i);
        put(builder, expected, key, numberedValue(random, 100, i));
      }
      summary = builder.build();
    }
    if (collision) {
      assertRehashedOnce(summary, seed);
    }
    assertEquals(puts - expected.size(), summary.duplicatesDropped());
    assertEquals(expected.size(), summary.meta().recordCount());
    assertBuilt(expected);
  }

  /** The same hot key under FAIL is reported as a duplicate, not as a memory problem. */
  @Test
  void hotKeyRepeatedBeyondMemoryUnderFail() throws IOException {
    byte[] hot = utf8("hot-key");
    try (StoreBuilder builder = builder(true)) {
      assertDuplicateReported(
          builder,
          "hot-key",
          () -> {
            for (int i = 0; i < 30_000; i++) {
              builder.put(hot, new byte[100]);
            }
          });
    }
    StoreFiles.assertCleanFailure(target());
  }
}
