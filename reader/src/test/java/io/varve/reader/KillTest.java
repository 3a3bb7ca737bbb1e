package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.core.store.StoreRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} at random points of builds, merges, re-indexes and publishes ({@link
 * KillTestChild}, a JVM of its own): afterwards every version in the root is a complete store that
 * verifies, {@code CURRENT} names one, and the next build and publish in the root remove every
 * temporary directory, staging directory, lock file and pointer file the killed runs left. While a child runs, a build in
 * the same root (whose sweep must leave a live run's directories alone) must not disturb it.
 * Kills: {@code -Dvarve.killTest.runs} (default 10); the seed is printed.
 */
class KillTest {
  private static final int RUNS = Integer.getInteger("varve.killTest.runs", 10);

  @TempDir Path temp;

  @Test
  void killedRunsLeaveCompleteStoresAndTheNextBuildCleansUp() throws Exception {
    long seed = Long.getLong("varve.killTest.seed", 0x4B111L);
    System.out.println("KillTest seed " + Long.toHexString(seed) + ", " + RUNS + " kills");
    SplittableRandom random = new SplittableRandom(seed);
    Path rootDirectory = temp.resolve("root");
    StoreRoot root = StoreRoot.open(rootDirectory);
    int leftBehind = 0;
    int sweptWhileAlive = 0;
    List<String> phases = new ArrayList<>();
    java.util.Set<String> verified = new java.util.HashSet<>();
    for (int run = 0; run < RUNS; run++) {
      Path log = temp.resolve("child-" + run + ".log");
      Process child = ChildJvm.start(KillTestChild.class, log, rootDirectory.toString(), Long.toString(seed + run));
      long delay = 300 + random.nextInt(2_500);
      if (random.nextBoolean()) {
        Thread.sleep(delay / 2);
        // A build beside a live run: its sweep must not touch the live run's directories.
        try (StoreBuilder builder = StoreBuilder.create(temp.resolve("root").resolve("beside-" + run))) {
          builder.put(new byte[] {(byte) run}, new byte[] {1});
          builder.build();
        }
        sweptWhileAlive++;
        Thread.sleep(delay / 2);
      } else {
        Thread.sleep(delay);
      }
      assertTrue(child.isAlive(), "the child died before it was killed (run " + run + "): " + Files.readString(log));
      child.destroyForcibly();
      assertTrue(child.waitFor(60, TimeUnit.SECONDS));
      List<String> lines = Files.readAllLines(log);
      phases.add(lines.isEmpty() ? "start" : lines.get(lines.size() - 1).split(" ")[0]);
      checkEveryVersionIsComplete(root, verified);
      leftBehind += leftovers(rootDirectory).size();
    }
    System.out.println("KillTest: killed during " + phases + "; " + leftBehind + " temporary entries left by killed runs (summed over kills); "
        + sweptWhileAlive + " builds beside a live run");
    // The next run: a build (which sweeps dead runs' directories and locks) and its publish (which
    // removes the pointer file of a publish killed before its rename; a build may not, since another
    // process may be publishing beside it).
    Path after = root.newVersion();
    try (StoreBuilder builder = StoreBuilder.create(after)) {
      builder.put(new byte[] {7}, new byte[] {7});
      builder.build();
    }
    root.publish(after.getFileName().toString());
    assertEquals(List.of(), leftovers(rootDirectory), "the next build and publish removed what killed runs left");
  }

  /** Every version is a complete store (each verified once: a published version never changes). */
  private static void checkEveryVersionIsComplete(StoreRoot root, java.util.Set<String> verified) throws IOException {
    for (String version : root.versions()) {
      if (verified.add(version)) {
        try (Store store = Store.open(root.path(version))) {
          store.verify();
        }
      }
    }
    Optional<String> current = root.current();
    if (current.isPresent()) {
      assertTrue(root.versions().contains(current.get()), "CURRENT names " + current.get());
    }
  }

  /** Entries of a build's, merge's or publish's temporary names. */
  private static List<String> leftovers(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries
          .map(p -> p.getFileName().toString())
          .filter(name -> name.startsWith("."))
          .sorted()
          .collect(Collectors.toList());
    }
  }
}
