package io.varve.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.files.FileTrees;
import io.varve.core.shard.ShardManifest;
import io.varve.core.store.KeyMode;
import io.varve.reader.ShardedStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code format("varve")} in local mode: the same store as {@link VarveSpark#write}, its options and save modes. */
class VarveDataSourceTest {
  private static SparkSession spark;

  @TempDir Path temp;

  @BeforeAll
  static void startSpark() {
    spark = SparkTestSessions.start("local[2]");
  }

  @BeforeEach
  void needsSpark() {
    SparkTestSessions.assumeSpark(spark);
  }

  @AfterAll
  static void stopSpark() {
    SparkTestSessions.stop(spark);
  }

  /** Rows {@code 0..n-1} of a fixed random permutation of ids: key {@code "key-" + id}, value {@code "value-" + id}. */
  private static Dataset<Row> rows(long n) {
    return spark.range(0, n, 1, 3).select(
        concat(lit("key-"), col("id").cast("string")).as("key"), concat(lit("value-"), col("id").cast("string")).as("value"));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private String output(String name) {
    return temp.resolve(name).toUri().toString();
  }

  @Test
  void formatVarveWritesTheStoreVarveSparkWrites() throws IOException {
    long seed = 0x5EEDL;
    System.out.println("VarveDataSourceTest seed " + seed);
    int n = 20_000;
    rows(n).write().format("varve").option("shards", 8).option("seed", seed).save(output("v1"));
    ShardManifest viaApi = VarveSpark.write(rows(n), "key", "value", output("api"), VarveWriteOptions.builder(8).seed(seed).build());
    Map<String, String> reference = new HashMap<>();
    for (int i = 0; i < n; i++) {
      reference.put("key-" + i, "value-" + i);
    }
    Random queries = new Random(seed);
    try (ShardedStore store = ShardedStore.open(temp.resolve("v1"))) {
      assertEquals(8, store.shardCount());
      assertEquals(seed, store.manifest().seed());
      assertEquals(n, store.size());
      for (Map.Entry<String, String> e : reference.entrySet()) {
        assertArrayEquals(utf8(e.getValue()), store.get(utf8(e.getKey())), e.getKey());
      }
      for (int i = 0; i < 1000; i++) {
        String absent = "absent-" + queries.nextInt();
        assertFalse(store.contains(utf8(absent)), absent);
      }
      for (int shard = 0; shard < 8; shard++) {
        assertEquals(viaApi.shards().get(shard).records(), store.manifest().shards().get(shard).records(), "shard " + shard);
      }
      store.verify();
    }
  }

  @Test
  void optionNamesAreCaseInsensitiveAndEveryOptionIsApplied() throws IOException {
    Dataset<Row> frame = rows(100).select(col("key").as("k"), col("value").as("v"))
        .union(rows(1).select(col("key").as("k"), lit("later").as("v")))
        .union(spark.range(1).select(lit("no value").as("k"), lit(null).cast("string").as("v")));
    frame.write().format("varve")
        .option("SHARDS", "3").option("KeyColumn", "k").option("valuecolumn", "v")
        .option("duplicates", "last_wins").option("keyMode", "signature:40").option("memoryBudget", "8m")
        .option("nullValuesAsEmpty", "true").option("localDirectory", temp.resolve("local").toString())
        .option("shardFormat", "artifact")
        .save(output("options"));
    try (ShardedStore store = ShardedStore.open(temp.resolve("options"))) {
      assertEquals(3, store.shardCount());
      assertTrue(Files.isRegularFile(temp.resolve("options").resolve("shard-00002.varve")));
      assertEquals(KeyMode.signature(40), store.manifest().keyMode());
      assertEquals(101, store.size());
      assertArrayEquals(new byte[0], store.get(utf8("no value")));
      assertEquals(99, java.util.stream.IntStream.range(1, 100)
          .filter(i -> java.util.Arrays.equals(utf8("value-" + i), store.get(utf8("key-" + i)))).count());
      byte[] first = store.get(utf8("key-0"));
      assertTrue(java.util.Arrays.equals(utf8("later"), first) || java.util.Arrays.equals(utf8("value-0"), first),
          new String(first, StandardCharsets.UTF_8));
    }
  }

  @Test
  void missingUnknownAndMalformedOptionsAreRefusedByName() {
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
        () -> rows(10).write().format("varve").save(output("noshards")));
    assertTrue(missing.getMessage().contains("option(\"shards\", N)"), missing.getMessage());
    IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
        () -> rows(10).write().format("varve").option("shards", 2).option("shard", 2).save(output("typo")));
    assertTrue(unknown.getMessage().contains("no option 'shard'"), unknown.getMessage());
    IllegalArgumentException malformed = assertThrows(IllegalArgumentException.class,
        () -> rows(10).write().format("varve").option("shards", "many").save(output("many")));
    assertTrue(malformed.getMessage().contains("shards expects an integer, got 'many'"), malformed.getMessage());
    IllegalArgumentException column = assertThrows(IllegalArgumentException.class,
        () -> rows(10).write().format("varve").option("shards", 2).option("keyColumn", "nope").save(output("nocolumn")));
    assertTrue(column.getMessage().contains("no key column 'nope'"), column.getMessage());
    for (String name : new String[] {"noshards", "typo", "many", "nocolumn"}) {
      assertFalse(Files.exists(temp.resolve(name)), name);
    }
  }

  @Test
  void aPublishedStoreIsNeverOverwrittenNorAppendedTo() throws IOException {
    String uri = output("v1");
    rows(50).write().format("varve").option("shards", 2).save(uri);
    byte[] manifest = Files.readAllBytes(temp.resolve("v1").resolve(ShardManifest.FILE_NAME));
    UncheckedIOException exists = assertThrows(UncheckedIOException.class,
        () -> rows(60).write().format("varve").option("shards", 2).save(uri));
    assertTrue(exists.getCause() instanceof FileAlreadyExistsException, String.valueOf(exists.getCause()));
    for (SaveMode mode : new SaveMode[] {SaveMode.Overwrite, SaveMode.Append}) {
      IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
          () -> rows(60).write().format("varve").mode(mode).option("shards", 2).save(uri));
      assertTrue(refused.getMessage().contains("does not support SaveMode." + mode) && refused.getMessage().contains("new path"),
          refused.getMessage());
    }
    rows(60).write().format("varve").mode(SaveMode.Ignore).option("shards", 2).save(uri);
    assertArrayEquals(manifest, Files.readAllBytes(temp.resolve("v1").resolve(ShardManifest.FILE_NAME)), "the store was changed");
    rows(60).write().format("varve").mode(SaveMode.Ignore).option("shards", 2).save(output("v2"));
    try (ShardedStore store = ShardedStore.open(temp.resolve("v2"))) {
      assertEquals(60, store.size());
    }
  }

  /**
   * {@code Ignore} over what a killed job left (its {@code _temporary} and a shard renamed, no
   * {@code _MANIFEST}): no store, so not skipped. Until 2026-11-28 it was taken for existing data
   * and the save wrote nothing without a word, leaving the output without a store; now the save is
   * refused, naming the leftovers (another job may still be writing them), and once they are
   * deleted, {@code Ignore} writes the store.
   */
  @Test
  void ignoreSkipsOnlyAPublishedStoreNotAKilledJobsLeftovers() throws IOException {
    Path output = temp.resolve("v3");
    Files.createDirectories(output.resolve("_temporary/20261127T235900-1a2b3c4d/shard-00001.attempt-7"));
    Files.writeString(output.resolve("_temporary/20261127T235900-1a2b3c4d/_RUNNING"), "");
    Files.createDirectories(output.resolve("shard-00000"));
    Files.write(output.resolve("shard-00000/data"), new byte[100]);
    UncheckedIOException refused = assertThrows(UncheckedIOException.class,
        () -> rows(40).write().format("varve").mode(SaveMode.Ignore).option("shards", 2).save(output.toUri().toString()));
    assertTrue(refused.getCause() instanceof FileAlreadyExistsException, String.valueOf(refused.getCause()));
    assertTrue(refused.getMessage().contains("what an unfinished job left (no _MANIFEST, so no store)")
        && refused.getMessage().contains("_temporary") && refused.getMessage().contains("shard-00000"), refused.getMessage());
    assertFalse(Files.exists(output.resolve(ShardManifest.FILE_NAME)));
    assertTrue(Files.exists(output.resolve("_temporary/20261127T235900-1a2b3c4d/_RUNNING")), "the leftovers are not touched");

    // Another directory's contents are no store either: refused, not skipped.
    Path other = Files.createDirectories(temp.resolve("other"));
    Files.writeString(other.resolve("notes.txt"), "hello");
    UncheckedIOException notEmpty = assertThrows(UncheckedIOException.class,
        () -> rows(40).write().format("varve").mode(SaveMode.Ignore).option("shards", 2).save(other.toUri().toString()));
    assertTrue(notEmpty.getMessage().contains("is not empty (it holds notes.txt)"), notEmpty.getMessage());

    FileTrees.deleteTree(output);
    rows(40).write().format("varve").mode(SaveMode.Ignore).option("shards", 2).save(output.toUri().toString());
    try (ShardedStore store = ShardedStore.open(output)) {
      assertEquals(40, store.size());
    }
  }
}
