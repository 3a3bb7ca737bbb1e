package io.varve.reader;

import io.varve.builder.StoreArtifacts;
import io.varve.builder.StoreBuilder;
import io.varve.core.testing.TestRecords;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The close race the hostile test campaign found: one thread in a long {@code getAll} while six
 * threads call {@code get} and another thread closes the store. Before the fix the JVM died
 * (SIGSEGV in {@code getAll}) or {@code close()} returned while a lookup still read the data.
 *
 * <p>Reading a mapping after it is unmapped (or a loaded copy after it is freed: a large block goes
 * back to the kernel) kills the JVM, so a close that misses a reader fails this test by crashing
 * its JVM. The race was rare (the campaign saw it about once in 1,000 closes): CI runs {@code
 * -Dvarve.closeRace.rounds} rounds per access mode (default 300), and a longer run takes a larger
 * number. A lookup must also never return a wrong value, and after close every call must fail with
 * {@link StoreClosedException}; {@link LookupGuardTest} checks the guard's exactness directly.
 */
class CloseRaceTest {
  private static final int ROUNDS = Integer.getInteger("varve.closeRace.rounds", 300);
  private static final int GETTERS = 6;
  private static final int BATCH = 60_000;

  @TempDir Path temp;

  /** Each access mode, and a one-file artifact mapped in place (its data mapped at an offset). */
  @ParameterizedTest
  @CsvSource({"MAPPED, false", "LOADED, false", "MAPPED, true"})
  void closeWaitsForEveryLookupInFlight(DataAccess access, boolean artifact) throws Exception {
    long seed = 0xC105EL;
    System.out.println("CloseRaceTest seed " + Long.toHexString(seed) + ", " + ROUNDS + " rounds, " + access + (artifact ? ", artifact" : ""));
    Path dir = temp.resolve("store");
    Map<ByteBuffer, byte[]> records = TestRecords.variable(20_000, seed, 24, 40);
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    if (artifact) {
      dir = temp.resolve("store.varve");
      StoreArtifacts.pack(temp.resolve("store"), dir);
    }
    List<byte[]> keyList = new ArrayList<>();
    records.keySet().forEach(k -> keyList.add(k.array()));
    SplittableRandom random = new SplittableRandom(seed);
    byte[][] batch = CloseRace.batch(keyList, BATCH, random);
    long finishedLookups = 0;
    for (int round = 0; round < ROUNDS; round++) {
      finishedLookups += CloseRace.round(CloseRace.of(Store.open(dir, access)), records, keyList, batch, GETTERS, random, round);
    }
    System.out.println("CloseRaceTest " + access + (artifact ? ", artifact" : "") + ": " + ROUNDS + " closes, " + finishedLookups + " lookups finished before them");
  }
}
