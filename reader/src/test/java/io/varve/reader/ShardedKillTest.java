package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.ShardedStoreBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} during sharded builds, at random moments: every root that exists afterwards is
 * complete (opens, every key found with its value), the others do not exist, and the next build in
 * the directory removes what the killed one left.
 */
class ShardedKillTest {
  @TempDir Path temp;

  @Test
  void aKilledBuildPublishesNothingAndTheNextOneCleansUp() throws Exception {
    long seed = 0x5B1117L;
    int kills = 4;
    System.out.println("ShardedKillTest seed " + Long.toHexString(seed) + ", " + kills + " kills");
    SplittableRandom random = new SplittableRandom(seed);
    for (int kill = 0; kill < kills; kill++) {
      Process child = ChildJvm.start(ShardedKillTestChild.class, temp.resolve("child-" + kill + ".log"), temp.toString());
      Thread.sleep(1_500 + random.nextInt(3_000));
      child.destroyForcibly();
      assertTrue(child.waitFor(60, TimeUnit.SECONDS));
    }
    List<Path> roots;
    try (Stream<Path> entries = Files.list(temp)) {
      roots = entries.filter(p -> p.getFileName().toString().startsWith("root-")).toList();
    }
    System.out.println("ShardedKillTest: " + roots.size() + " complete roots");
    for (Path root : roots) {
      try (ShardedStore store = ShardedStore.open(root)) {
        assertEquals(ShardedKillTestChild.RECORDS, store.size());
        for (int i = 0; i < ShardedKillTestChild.RECORDS; i += 7) {
          assertArrayEquals(ShardedKillTestChild.value(i), store.get(ShardedKillTestChild.key(i)), root + " key " + i);
        }
      }
    }
    // A new build beside them sweeps the staging directories of the killed builds.
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(temp.resolve("after"), 2)) {
      builder.put(ShardedKillTestChild.key(1), ShardedKillTestChild.value(1));
      builder.build();
    }
    try (Stream<Path> entries = Files.list(temp)) {
      List<String> left = entries.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".")).toList();
      assertEquals(List.of(), left, "staging or temporary files left by killed builds");
    }
  }
}
