package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a child JVM ({@link SiltKillChild}) writing a fixed sequence of puts and deletes into
 * small log stores, with freezes and background merges running, at a random moment; then the
 * store is reopened, checked, and the next child goes on from where the store is. After every kill
 * the store holds exactly what the first {@code n} operations of the sequence make, for some
 * {@code n} at least the count the child's last sync reported: no synced operation lost, newest
 * wins, no value resurrected or from outside the sequence, later operations only as a prefix. And
 * the reopened directory holds only the files its manifest names. {@code -Dvarve.silt.kills} sets
 * the number of kills.
 */
class SiltKillTest {
  static final int MAX_SYNC_GAP = 300;
  @TempDir Path temp;

  @Test
  void noSyncedOperationIsLostAndNothingElseAppears() throws Exception {
    int kills = Integer.getInteger("varve.silt.kills", 8);
    long seed = Long.getLong("varve.silt.kill.seed", 0x5117_C111L);
    System.out.println("SiltKillTest seed " + seed + ", " + kills + " kills");
    Random random = new Random(seed);
    long opSeed = random.nextLong();
    Path dir = temp.resolve("store");
    long applied = 0;
    long merges = 0;
    int leftoversSeen = 0;
    for (int round = 0; round < kills; round++) {
      Process child =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx512m",
                  "-cp",
                  System.getProperty("java.class.path"),
                  SiltKillChild.class.getName(),
                  dir.toString(),
                  Long.toString(opSeed),
                  Long.toString(applied),
                  Long.toString(random.nextLong()))
              .redirectErrorStream(true)
              .start();
      AtomicLong synced = new AtomicLong(-1);
      AtomicLong childMerges = new AtomicLong();
      StringBuffer output = new StringBuffer();
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String line; (line = lines.readLine()) != null; ) {
                    if (line.startsWith("synced ")) {
                      String[] words = line.split(" ");
                      synced.set(Long.parseLong(words[1]));
                      childMerges.set(Long.parseLong(words[3]));
                    } else {
                      output.append(line).append('\n');
                    }
                  }
                } catch (IOException ignored) {
                  // the child died
                }
              });
      reader.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (synced.get() < 0 && child.isAlive() && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      long waitMillis = 50 + random.nextInt(1200);
      Thread.sleep(waitMillis);
      assertTrue(child.isAlive(), "the child ended by itself:\n" + output);
      child.destroyForcibly();
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
      reader.join();
      long last = synced.get();
      assertTrue(last > applied, "the child synced nothing:\n" + output);
      merges += childMerges.get();

      SiltManifest before = SiltManifest.read(dir);
      int leftovers = unnamedFiles(dir, before).size();
      leftoversSeen += leftovers;
      long reached;
      try (SiltStore store = SiltStore.open(dir, SiltKillChild.options(false))) {
        reached = check(store, opSeed, last);
        SiltStoreModelTest.assertOnlyNamedFiles(dir);
        System.out.println("SiltKillTest round " + round + ": killed " + waitMillis + " ms after the first sync, the last at op " + last
            + "; the store holds ops 0.." + (reached - 1) + "; " + childMerges.get() + " merges in the child, " + leftovers
            + " files left unnamed (cut freezes or merges), " + store.stats());
      }
      applied = reached;
    }
    try (SiltStore store = SiltStore.open(dir, SiltKillChild.options(false))) {
      store.mergeNow();
      assertTrue(check(store, opSeed, applied) >= applied, "after merging everything");
      assertEquals(1, store.stats().logStores());
    }
    System.out.println("SiltKillTest: " + applied + " ops in all, " + merges + " merges, " + leftoversSeen + " leftovers deleted on reopen");
    assertTrue(merges > 0, "no merge ran in the children");
  }

  /**
   * Checks that the store holds exactly what ops {@code 0 .. n - 1} make, for some {@code n >=
   * synced}, and returns the largest such {@code n}.
   */
  static long check(SiltStore store, long seed, long synced) {
    int keys = SiltKillChild.KEYS;
    long[] found = new long[keys]; // the op whose value the store holds, or -1
    int mismatches = 0;
    for (int k = 0; k < keys; k++) {
      byte[] value = store.get(SiltKillChild.key(k));
      found[k] = -1;
      if (value != null) {
        long op = value.length >= 8 ? ByteBuffer.wrap(value).getLong(0) : -1;
        if (op < 0 || op >= synced + 2L * MAX_SYNC_GAP || SiltKillChild.keyOf(seed, op) != k
            || !Arrays.equals(SiltKillChild.value(seed, op), value)) {
          fail("key " + k + " holds a value no operation up to " + (synced + 2L * MAX_SYNC_GAP) + " put there (op " + op + ")");
        }
        found[k] = op;
        mismatches++;
      }
    }
    long[] model = new long[keys];
    Arrays.fill(model, -1);
    long reached = mismatches == 0 ? 0 : -1;
    long firstReached = reached;
    for (long op = 0; op < synced + 2L * MAX_SYNC_GAP; op++) {
      int k = SiltKillChild.keyOf(seed, op);
      boolean wasWrong = model[k] != found[k];
      model[k] = SiltKillChild.value(seed, op) == null ? -1 : op;
      boolean isWrong = model[k] != found[k];
      mismatches += (isWrong ? 1 : 0) - (wasWrong ? 1 : 0);
      if (mismatches == 0) {
        reached = op + 1;
        if (firstReached < 0) {
          firstReached = reached;
        }
      }
    }
    if (reached < synced) {
      int missing = 0;
      for (int k = 0; k < keys; k++) {
        missing += model[k] != found[k] ? 1 : 0;
      }
      fail("the store is no prefix of the operations that reaches the last sync at op " + synced + " (the last prefix it matches ends at op "
          + reached + "; " + missing + " keys differ from the state at op " + (synced + 2L * MAX_SYNC_GAP) + ")");
    }
    return reached;
  }

  static List<String> unnamedFiles(Path dir, SiltManifest manifest) throws IOException {
    Set<String> named = manifest.fileNames();
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> !named.contains(n) && !n.startsWith(".") && !n.equals(SiltManifest.LOCK_FILE)).sorted().toList();
    }
  }

  @Test
  void theSequenceIsWhatTheChildWrites() {
    // The model's own ground: values name their op and differ between ops; one in five is a delete.
    long seed = 42;
    int deletes = 0;
    for (long op = 0; op < 10_000; op++) {
      byte[] value = SiltKillChild.value(seed, op);
      if (value == null) {
        deletes++;
      } else {
        assertEquals(op, ByteBuffer.wrap(value).getLong(0));
        assertArrayEquals(value, SiltKillChild.value(seed, op));
      }
    }
    assertTrue(deletes > 1_500 && deletes < 2_500, deletes + " deletes");
  }
}
