package io.varve.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.shard.ShardManifest;
import io.varve.reader.ShardedStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Task retries ({@code local[2,3]}: up to 3 attempts per task) against {@link FlakyFileSystem}: a
 * retried task, or an attempt written in full but not accepted, still yields one valid output; a
 * task failing on every attempt publishes nothing.
 */
class VarveSparkRetryTest {
  private static final int ROWS = 20_000;
  private static final int SHARDS = 8;
  private static SparkSession spark;

  @TempDir Path temp;

  @BeforeAll
  static void startSpark() {
    spark = SparkTestSessions.start("local[2,3]",
        "spark.hadoop.fs.flaky.impl", FlakyFileSystem.class.getName(),
        "spark.hadoop.fs.flaky.impl.disable.cache", "true");
  }

  @BeforeEach
  void needsSpark() {
    SparkTestSessions.assumeSpark(spark);
  }

  @AfterAll
  static void stopSpark() {
    SparkTestSessions.stop(spark);
  }

  @AfterEach
  void resetFileSystem() {
    FlakyFileSystem.reset();
  }

  private static Dataset<Row> rows() {
    return spark.range(0, ROWS, 1, 4).select(col("id").as("k"), concat(lit("v"), col("id").cast("string")).as("v"));
  }

  private String output(String name) {
    return "flaky://" + temp.resolve(name).toUri().getPath();
  }

  private static boolean inShard(org.apache.hadoop.fs.Path path, int shard) {
    return path.getParent() != null && path.getParent().getName().startsWith(ShardManifest.shardName(shard) + ".attempt-");
  }

  /** Every key answers, the manifest checks out, and the root holds the shards and the manifest only. */
  private void assertComplete(Path root) throws IOException {
    try (ShardedStore store = ShardedStore.open(root)) {
      assertEquals(ROWS, store.size());
      for (long i = 0; i < ROWS; i++) {
        byte[] key = java.nio.ByteBuffer.allocate(8).putLong(i).array();
        assertArrayEquals(("v" + i).getBytes(StandardCharsets.UTF_8), store.get(key), "key " + i);
      }
      store.verify();
    }
    try (Stream<Path> files = Files.list(root)) {
      assertEquals(SHARDS + 1, files.count(), "shards and manifest, no _temporary");
    }
  }

  private static long attemptsOf(int shard) {
    return FlakyFileSystem.creates.keySet().stream().filter(name -> name.startsWith(ShardManifest.shardName(shard) + ".")).count();
  }

  @Test
  void aTaskThatFailsOnceIsRetried() throws IOException {
    // Shard 2's first attempt fails on its second file: a partial attempt directory.
    FlakyFileSystem.rule = (operation, path, attempt) -> operation.equals("create") && attempt == 0 && inShard(path, 2)
        && FlakyFileSystem.creates.get(path.getParent().getName()).get() == 2;
    VarveSpark.write(rows(), "k", "v", output("retried"), VarveWriteOptions.builder(SHARDS).build());
    assertEquals(2, attemptsOf(2), "shard 2 was written by two attempts");
    assertComplete(temp.resolve("retried"));
  }

  @Test
  void anAttemptWrittenInFullButFailedIsNotPublished() throws IOException {
    // Shard 1's first attempt copies every file, then fails its check and cannot clean up (a lost executor):
    // its complete attempt directory stays beside the retry's, and only the accepted one is published.
    FlakyFileSystem.rule = (operation, path, attempt) -> attempt == 0 && (operation.equals("list") || operation.equals("delete"))
        && path.getName().startsWith(ShardManifest.shardName(1) + ".attempt-");
    VarveSpark.write(rows(), "k", "v", output("duplicate"), VarveWriteOptions.builder(SHARDS).build());
    assertEquals(2, attemptsOf(1), "shard 1 was written in full by two attempts");
    List<Integer> files = FlakyFileSystem.creates.entrySet().stream()
        .filter(entry -> entry.getKey().startsWith("shard-00001.")).map(entry -> entry.getValue().get()).toList();
    assertEquals(files.get(0), files.get(1), "both attempts copied every file: " + files);
    assertComplete(temp.resolve("duplicate"));
  }

  @ParameterizedTest
  @EnumSource(ShardFormat.class)
  void aTaskFailingOnEveryAttemptPublishesNothing(ShardFormat format) {
    FlakyFileSystem.rule = (operation, path, attempt) -> operation.equals("create") && inShard(path, 5);
    VarveWriteException e = assertThrows(VarveWriteException.class, () -> VarveSpark.write(rows(), "k", "v", output("failed"),
        VarveWriteOptions.builder(SHARDS).shardFormat(format).build()));
    assertTrue(e.getMessage().contains("flaky: create"), e.getMessage());
    assertEquals(3, attemptsOf(5), "three attempts of shard 5");
    assertFalse(Files.exists(temp.resolve("failed")), "no _MANIFEST, no shard, no _temporary, no directory");
  }

  @ParameterizedTest
  @EnumSource(ShardFormat.class)
  void aFailedPublishPublishesNothing(ShardFormat format) throws IOException {
    // Every task succeeds; the driver's creation of the manifest fails: the shards renamed so far are removed.
    Path root = Files.createDirectories(temp.resolve("unpublished"));
    FlakyFileSystem.rule = (operation, path, attempt) -> attempt == -1 && operation.equals("create")
        && path.getName().equals(ShardManifest.FILE_NAME);
    IOException e = assertThrows(IOException.class, () -> VarveSpark.write(rows(), "k", "v", output("unpublished"),
        VarveWriteOptions.builder(SHARDS).shardFormat(format).build()));
    assertTrue(e.getMessage().contains("flaky: create") && e.getMessage().contains(ShardManifest.FILE_NAME), e.getMessage());
    try (Stream<Path> files = Files.list(root)) {
      assertEquals(List.of(), files.toList(), "the empty directory it was given, emptied again");
    }
  }
}
