package io.varve.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.shard.ShardManifest;
import io.varve.core.store.StoreRoot;
import io.varve.reader.FollowingShardedStore;
import io.varve.reader.ShardedStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link VarveSpark#write} to a real HDFS in the test's JVM (one name node, one data node): HDFS's
 * own rename and create semantics, then the store fetched to local disk and opened as a serving
 * host would.
 */
class VarveSparkHdfsTest {
  private static final int ROWS = 20_000;

  @TempDir static Path temp;
  private static MiniDFSCluster cluster;
  private static SparkSession spark;

  @BeforeAll
  static void start() throws IOException {
    spark = SparkTestSessions.start("local[2]", "spark.hadoop.dfs.replication", "1");
    if (spark == null) {
      return;
    }
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, temp.resolve("hdfs").toString());
    conf.setInt("dfs.replication", 1);
    cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
  }

  @AfterAll
  static void stop() {
    SparkTestSessions.stop(spark);
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  @BeforeEach
  void needsSpark() {
    SparkTestSessions.assumeSpark(spark);
  }

  private static Dataset<Row> rows() {
    return spark.range(0, ROWS, 1, 2).select(col("id").as("k"), concat(lit("v"), col("id").cast("string")).as("v"));
  }

  /**
   * One-file shards on HDFS, then the serving host's path: {@link ShardedStoreFetcher} downloads
   * them into a local {@link StoreRoot}, checks them against the manifest and publishes the version,
   * which a {@link FollowingShardedStore} serves, each shard's artifact mapped in place.
   */
  @Test
  void artifactShardsOnHdfsAreFetchedPublishedAndFollowed() throws IOException {
    String uri = cluster.getURI() + "/stores/users-artifacts/v=1";
    ShardManifest manifest =
        VarveSpark.write(rows(), "k", "v", uri, VarveWriteOptions.builder(4).shardFormat(ShardFormat.ARTIFACT).build());
    FileSystem fs = cluster.getFileSystem();
    List<String> names =
        Arrays.stream(fs.listStatus(new org.apache.hadoop.fs.Path("/stores/users-artifacts/v=1")))
            .map(FileStatus::getPath)
            .map(org.apache.hadoop.fs.Path::getName)
            .sorted()
            .toList();
    assertEquals(List.of("_MANIFEST", "shard-00000.varve", "shard-00001.varve", "shard-00002.varve", "shard-00003.varve"), names);

    Path rootDirectory = temp.resolve("serving-root");
    String version = ShardedStoreFetcher.fetch(java.net.URI.create(uri), cluster.getFileSystem().getConf(), rootDirectory);
    try (FollowingShardedStore store = FollowingShardedStore.open(rootDirectory)) {
      assertEquals(version, store.version());
      for (long i = 0; i < ROWS; i++) {
        assertArrayEquals(("v" + i).getBytes(StandardCharsets.UTF_8), store.get(ByteBuffer.allocate(8).putLong(i).array()));
      }
      assertNull(store.get(ByteBuffer.allocate(8).putLong(ROWS).array()));
    }
    try (ShardedStore store = ShardedStore.open(StoreRoot.open(rootDirectory).path(version))) {
      assertEquals(manifest, store.manifest());
      store.verify();
    }
  }

  @Test
  void aStoreWrittenToHdfsIsFetchedAndServed() throws IOException {
    String uri = cluster.getURI() + "/stores/users/v=1";
    ShardManifest manifest = VarveSpark.write(rows(), "k", "v", uri, VarveWriteOptions.builder(4).build());
    FileSystem fs = cluster.getFileSystem();
    org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path("/stores/users/v=1");
    List<String> names = Arrays.stream(fs.listStatus(root)).map(FileStatus::getPath).map(org.apache.hadoop.fs.Path::getName).sorted().toList();
    assertEquals(List.of("_MANIFEST", "shard-00000", "shard-00001", "shard-00002", "shard-00003"), names);

    Path local = temp.resolve("fetched");
    fs.copyToLocalFile(false, root, new org.apache.hadoop.fs.Path(local.toUri()), true);
    try (ShardedStore store = ShardedStore.open(local)) {
      assertEquals(manifest, store.manifest());
      for (long i = 0; i < ROWS; i++) {
        assertArrayEquals(("v" + i).getBytes(StandardCharsets.UTF_8), store.get(ByteBuffer.allocate(8).putLong(i).array()));
      }
      store.verify();
    }

    FileAlreadyExistsException again = assertThrows(FileAlreadyExistsException.class,
        () -> VarveSpark.write(rows(), "k", "v", uri, VarveWriteOptions.builder(4).build()));
    assertTrue(again.getMessage().contains("already holds a varve store"), again.getMessage());
  }
}
