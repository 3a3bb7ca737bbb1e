package io.varve.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.ShardedStoreBuilder;
import io.varve.core.store.StoreRoot;
import io.varve.reader.ShardedStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * As root: the serving root on a small tmpfs (8 MiB) that a fetch of a larger store fills up
 * (skipped without root). The fetch fails naming the root and the file it was writing (the JVM's
 * own "No space left on device" names none), leaves {@code CURRENT} and the version it names as
 * they were and no staging directory (so the space is free again), and the next fetch of a store
 * that fits publishes.
 */
class FullDiskFetchTest {
  private static final long SEED = 0xF011D15CL;

  @TempDir Path temp;

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aFullLocalDiskFailsTheFetchNamingTheRootAndLeavesTheServedVersion(boolean artifacts) throws Exception {
    Assumptions.assumeTrue(SparkTestSessions.sparkStarts(), "Hadoop's client cannot start on JDK " + Runtime.version());
    System.out.println("FullDiskFetchTest seed=" + SEED);
    Path small = Files.createDirectory(temp.resolve("small"));
    Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", small.toString()), "mounting a tmpfs needs root: skipped");
    try {
      Path rootDirectory = small.resolve("serving");
      Configuration conf = new Configuration();
      String first = ShardedStoreFetcher.fetch(build(temp.resolve("small-job"), 2_000, artifacts).toUri(), conf, rootDirectory);
      Path large = build(temp.resolve("large-job"), 150_000, artifacts);
      IOException e = assertThrows(IOException.class, () -> ShardedStoreFetcher.fetch(large.toUri(), conf, rootDirectory));
      System.out.println("FullDiskFetchTest: " + e.getMessage());
      assertTrue(e.getMessage().contains("No space left on device") && e.getMessage().contains(rootDirectory.toString()),
          "names the root: " + e.getMessage());
      StoreRoot root = StoreRoot.open(rootDirectory);
      assertEquals(first, root.current().orElseThrow());
      assertEquals(List.of(first), root.versions());
      try (Stream<Path> entries = Files.list(rootDirectory)) {
        assertEquals(List.of(), entries.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".fetch-")).toList());
      }
      try (ShardedStore store = ShardedStore.open(root.path(first))) {
        store.verify();
      }
      String second = ShardedStoreFetcher.fetch(build(temp.resolve("small-job-2"), 2_000, artifacts).toUri(), conf, rootDirectory);
      assertEquals(second, root.current().orElseThrow());
    } finally {
      run("umount", "-l", small.toString());
    }
  }

  private static Path build(Path source, int records, boolean artifacts) throws IOException {
    SplittableRandom random = new SplittableRandom(SEED + records);
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(source, 2)) {
      if (artifacts) {
        builder.shardsAsArtifacts();
      }
      for (int i = 0; i < records; i++) {
        byte[] value = new byte[40];
        random.nextBytes(value);
        builder.put(("key-" + i).getBytes(java.nio.charset.StandardCharsets.US_ASCII), value);
      }
      builder.build();
    }
    return source;
  }

  private static boolean run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
  }
}
