package io.varve.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.DuplicatePolicy;
import io.varve.builder.ShardedStoreBuilder;
import io.varve.builder.StoreBuilder;
import io.varve.core.shard.ShardManifest;
import io.varve.core.shard.ShardRouter;
import io.varve.core.store.KeyMode;
import io.varve.reader.ShardedStore;
import io.varve.reader.Store;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link VarveSpark#write} in local mode ({@code local[2]}, no task retries): answers, columns, bad input. */
class VarveSparkTest {
  /** Spreads the row numbers over the whole long range, so the keys look like ids. */
  private static final long SCRAMBLE = 0x9E3779B97F4A7C15L;

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

  /** Rows {@code 0..n-1}: key the long {@code i ^ SCRAMBLE}, value the string {@code "value-" + i}. */
  private static Dataset<Row> longKeys(long n) {
    return spark.range(0, n, 1, 4)
        .select(col("id").bitwiseXOR(lit(SCRAMBLE)).as("k"), concat(lit("value-"), col("id").cast("string")).as("v"));
  }

  private static byte[] longKey(long i) {
    return ByteBuffer.allocate(8).putLong(i ^ SCRAMBLE).array();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private String output(String name) {
    return temp.resolve(name).toUri().toString();
  }

  @Test
  void everyKeyIsFoundWithTheAnswersOfASingleBuild() throws IOException {
    int n = 1_000_000;
    long start = System.nanoTime();
    ShardManifest manifest = VarveSpark.write(longKeys(n), "k", "v", output("users"), VarveWriteOptions.builder(8).build());
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.println("VarveSparkTest: " + n + " rows into 8 shards in " + millis + " ms");
    assertEquals(8, manifest.shardCount());
    assertEquals(n, manifest.recordCount());

    Path single = temp.resolve("single");
    try (StoreBuilder builder = StoreBuilder.create(single)) {
      for (long i = 0; i < n; i++) {
        builder.put(longKey(i), utf8("value-" + i));
      }
      builder.build();
    }
    Path root = temp.resolve("users");
    try (ShardedStore sharded = ShardedStore.open(root); Store store = Store.open(single)) {
      assertEquals(manifest, sharded.manifest());
      assertEquals(n, sharded.size());
      ShardRouter router = ShardRouter.of(0, 8);
      for (long i = 0; i < n; i++) {
        byte[] key = longKey(i);
        byte[] value = sharded.get(key);
        assertArrayEquals(utf8("value-" + i), value, "key " + i);
        assertArrayEquals(store.get(key), value, "key " + i);
        assertEquals(router.shardOf(key), sharded.shardOf(key));
      }
      for (long i = n; i < n + 1000; i++) {
        assertNull(sharded.get(longKey(i)));
        assertNull(store.get(longKey(i)));
      }
      sharded.verify();
    }
    try (Stream<Path> files = Files.list(root)) {
      List<String> names = files.map(p -> p.getFileName().toString()).sorted().toList();
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        expected.add(ShardManifest.shardName(i));
      }
      expected.add(0, ShardManifest.FILE_NAME);
      assertEquals(expected, names, "no _temporary, no .crc files");
    }
  }

  @Test
  void artifactShardsAnswerAsAHashMapAndAsALocalArtifactBuild() throws IOException {
    long seed = 0x5EED_A27F_AC75L;
    String seeded = String.format("seed %#x", seed);
    System.out.println("VarveSparkTest.artifactShards: " + seeded);
    Random random = new Random(seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    List<Row> rows = new ArrayList<>();
    while (expected.size() < 30_000) {
      byte[] key = randomBytes(random, 1 + random.nextInt(24));
      byte[] value = randomBytes(random, random.nextInt(41));
      if (expected.putIfAbsent(ByteBuffer.wrap(key), value) == null) {
        rows.add(RowFactory.create(key, value));
      }
    }
    StructType schema = new StructType().add("k", DataTypes.BinaryType).add("v", DataTypes.BinaryType);
    ShardManifest manifest = VarveSpark.write(spark.createDataFrame(rows, schema).repartition(3), "k", "v", output("artifacts"),
        VarveWriteOptions.builder(8).seed(11).shardFormat(ShardFormat.ARTIFACT).build());

    Path root = temp.resolve("artifacts");
    Path local = temp.resolve("local-artifacts");
    ShardManifest localManifest;
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(local, 8).seed(11).shardsAsArtifacts()) {
      for (Row row : rows) {
        builder.put((byte[]) row.get(0), (byte[]) row.get(1));
      }
      localManifest = builder.build().manifest();
    }
    assertEquals(fileNames(local), fileNames(root), "the root of ShardedStoreBuilder.shardsAsArtifacts()");
    assertEquals(withoutMetaChecksums(localManifest), withoutMetaChecksums(manifest), "its manifest but for build times");
    try (ShardedStore store = ShardedStore.open(root)) {
      assertEquals(manifest, store.manifest());
      assertEquals(expected.size(), store.size());
      for (Map.Entry<ByteBuffer, byte[]> entry : expected.entrySet()) {
        assertArrayEquals(entry.getValue(), store.get(entry.getKey().array()), seeded);
      }
      int absent = 0;
      while (absent < 1000) {
        byte[] key = randomBytes(random, 1 + random.nextInt(24));
        if (!expected.containsKey(ByteBuffer.wrap(key))) {
          assertNull(store.get(key), seeded);
          absent++;
        }
      }
      store.verify();
    }
  }

  private static byte[] randomBytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  private static List<String> fileNames(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  /** The manifest's shards as (name, records, bytes, store seed): the meta checksums cover the build time too. */
  private static List<List<Object>> withoutMetaChecksums(ShardManifest manifest) {
    return manifest.shards().stream()
        .map(shard -> List.<Object>of(shard.name(), shard.records(), shard.bytes(), shard.storeSeed()))
        .toList();
  }

  @Test
  void aFailedArtifactJobPublishesNothing() {
    StructType schema = new StructType().add("k", DataTypes.StringType).add("v", DataTypes.StringType);
    Dataset<Row> frame = spark.createDataFrame(
        List.of(RowFactory.create("twice", "x"), RowFactory.create("once", "y"), RowFactory.create("twice", "z")), schema);
    VarveWriteException e = assertThrows(VarveWriteException.class, () -> VarveSpark.write(frame, "k", "v",
        output("dup-artifacts"), VarveWriteOptions.builder(4).shardFormat(ShardFormat.ARTIFACT).build()));
    assertTrue(e.getMessage().contains("duplicate key") && e.getMessage().contains("twice"), e.getMessage());
    assertFalse(Files.exists(temp.resolve("dup-artifacts")), "no _MANIFEST, no shard, no directory");
  }

  @Test
  void stringBinaryAndLongColumns() throws IOException {
    StructType schema = new StructType()
        .add("name", DataTypes.StringType)
        .add("blob", DataTypes.BinaryType)
        .add("count", DataTypes.LongType);
    List<Row> rows = List.of(
        RowFactory.create("", new byte[0], 0L),
        RowFactory.create("ünïcödé ✓", new byte[] {1, 2, 3}, -1L),
        RowFactory.create("plain", new byte[] {(byte) 0xff}, Long.MAX_VALUE));
    Dataset<Row> frame = spark.createDataFrame(rows, schema);
    VarveSpark.write(frame, "name", "blob", output("string-binary"), VarveWriteOptions.builder(3).build());
    VarveSpark.write(frame, "blob", "count", output("binary-long"), VarveWriteOptions.builder(2).seed(7).build());
    try (ShardedStore byName = ShardedStore.open(temp.resolve("string-binary"));
        ShardedStore byBlob = ShardedStore.open(temp.resolve("binary-long"))) {
      assertEquals(7, byBlob.manifest().seed());
      for (Row row : rows) {
        assertArrayEquals((byte[]) row.get(1), byName.get(utf8(row.getString(0))));
        assertArrayEquals(ByteBuffer.allocate(8).putLong(row.getLong(2)).array(), byBlob.get((byte[]) row.get(1)));
      }
    }
  }

  @Test
  void emptyShardsAreShardsAndTheKeyModeIsEveryShards() throws IOException {
    ShardManifest manifest = VarveSpark.write(longKeys(3), "k", "v", output("sparse"),
        VarveWriteOptions.builder(16).keyMode(KeyMode.signature(32)).build());
    assertEquals(3, manifest.recordCount());
    assertEquals(KeyMode.signature(32), manifest.keyMode());
    assertTrue(manifest.shards().stream().filter(s -> s.records() == 0).count() >= 13);
    try (ShardedStore store = ShardedStore.open(temp.resolve("sparse"))) {
      for (long i = 0; i < 3; i++) {
        assertArrayEquals(utf8("value-" + i), store.get(longKey(i)));
      }
      store.verify();
    }
  }

  /** Over 200 shards Spark's shuffle sorts and spills instead of writing one file per shard. */
  @Test
  void moreShardsThanSparksBypassThreshold() throws IOException {
    ShardManifest manifest = VarveSpark.write(longKeys(20_000), "k", "v", output("many"), VarveWriteOptions.builder(300).build());
    assertEquals(300, manifest.shardCount());
    assertEquals(20_000, manifest.recordCount());
    try (ShardedStore store = ShardedStore.open(temp.resolve("many"))) {
      for (long i = 0; i < 20_000; i++) {
        assertArrayEquals(utf8("value-" + i), store.get(longKey(i)));
      }
    }
  }

  @Test
  void otherColumnTypesAreRefusedByName() {
    Dataset<Row> ints = spark.range(10).select(col("id").cast("int").as("id"), col("id").cast("double").as("score"));
    IllegalArgumentException key = assertThrows(IllegalArgumentException.class,
        () -> VarveSpark.write(ints, "id", "id", output("ints"), VarveWriteOptions.builder(2).build()));
    assertTrue(key.getMessage().contains("key column 'id' has type int"), key.getMessage());
    assertTrue(key.getMessage().contains("cast(\"long\")"), key.getMessage());
    Dataset<Row> mixed = spark.range(10).select(col("id").as("id"), col("id").cast("double").as("score"));
    IllegalArgumentException value = assertThrows(IllegalArgumentException.class,
        () -> VarveSpark.write(mixed, "id", "score", output("doubles"), VarveWriteOptions.builder(2).build()));
    assertTrue(value.getMessage().contains("value column 'score' has type double"), value.getMessage());
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
        () -> VarveSpark.write(mixed, "nope", "score", output("missing"), VarveWriteOptions.builder(2).build()));
    assertTrue(missing.getMessage().contains("no key column 'nope'"), missing.getMessage());
    assertFalse(Files.exists(temp.resolve("ints")));
  }

  @Test
  void aNullKeyFailsTheJobAndPublishesNothing() {
    StructType schema = new StructType().add("k", DataTypes.StringType).add("v", DataTypes.StringType);
    Dataset<Row> frame = spark.createDataFrame(
        List.of(RowFactory.create("a", "1"), RowFactory.create(null, "orphan"), RowFactory.create("b", "2")), schema);
    VarveWriteException e = assertThrows(VarveWriteException.class,
        () -> VarveSpark.write(frame, "k", "v", output("nullkey"), VarveWriteOptions.builder(2).build()));
    assertTrue(e.getMessage().contains("null key in column 'k'"), e.getMessage());
    assertTrue(e.getMessage().contains("\"orphan\""), e.getMessage());
    assertFalse(Files.exists(temp.resolve("nullkey")), "nothing published, not even the directory");
  }

  @Test
  void nullValuesFailUnlessAllowedAsEmpty() throws IOException {
    StructType schema = new StructType().add("k", DataTypes.StringType).add("v", DataTypes.BinaryType);
    Dataset<Row> frame = spark.createDataFrame(List.of(RowFactory.create("a", null), RowFactory.create("b", new byte[] {9})), schema);
    VarveWriteException e = assertThrows(VarveWriteException.class,
        () -> VarveSpark.write(frame, "k", "v", output("nullvalue"), VarveWriteOptions.builder(2).build()));
    assertTrue(e.getMessage().contains("null value in column 'v' for key \"a\""), e.getMessage());
    VarveSpark.write(frame, "k", "v", output("empty"), VarveWriteOptions.builder(2).nullValuesAsEmpty(true).build());
    try (ShardedStore store = ShardedStore.open(temp.resolve("empty"))) {
      assertArrayEquals(new byte[0], store.get(utf8("a")));
      assertArrayEquals(new byte[] {9}, store.get(utf8("b")));
    }
  }

  @Test
  void duplicateKeysFailShowingTheKeyOrTheLastWins() throws IOException {
    StructType schema = new StructType().add("k", DataTypes.StringType).add("v", DataTypes.StringType);
    Dataset<Row> frame = spark.createDataFrame(
        List.of(RowFactory.create("twice", "x"), RowFactory.create("once", "y"), RowFactory.create("twice", "x")), schema);
    VarveWriteException e = assertThrows(VarveWriteException.class,
        () -> VarveSpark.write(frame, "k", "v", output("dup"), VarveWriteOptions.builder(4).build()));
    assertTrue(e.getMessage().contains("duplicate key") && e.getMessage().contains("twice"), e.getMessage());
    assertFalse(Files.exists(temp.resolve("dup")));
    ShardManifest manifest = VarveSpark.write(frame, "k", "v", output("lastwins"),
        VarveWriteOptions.builder(4).duplicates(DuplicatePolicy.LAST_WINS).build());
    assertEquals(2, manifest.recordCount());
  }

  @Test
  void anExistingOutputIsRefused() throws IOException {
    String uri = output("v1");
    VarveSpark.write(longKeys(10), "k", "v", uri, VarveWriteOptions.builder(2).build());
    FileAlreadyExistsException again = assertThrows(FileAlreadyExistsException.class,
        () -> VarveSpark.write(longKeys(10), "k", "v", uri, VarveWriteOptions.builder(2).build()));
    assertTrue(again.getMessage().contains("already holds a varve store") && again.getMessage().contains("new version"),
        again.getMessage());
    Path other = Files.createDirectories(temp.resolve("other"));
    Files.writeString(other.resolve("notes.txt"), "hello");
    FileAlreadyExistsException notEmpty = assertThrows(FileAlreadyExistsException.class,
        () -> VarveSpark.write(longKeys(10), "k", "v", other.toUri().toString(), VarveWriteOptions.builder(2).build()));
    assertTrue(notEmpty.getMessage().contains("is not empty (it holds notes.txt)"), notEmpty.getMessage());
    assertEquals(List.of("notes.txt"), Arrays.stream(other.toFile().list()).toList());
    Path empty = Files.createDirectories(temp.resolve("empty-dir"));
    VarveSpark.write(longKeys(10), "k", "v", empty.toUri().toString(), VarveWriteOptions.builder(2).build());
    assertTrue(Files.exists(empty.resolve(ShardManifest.FILE_NAME)));
  }
}
