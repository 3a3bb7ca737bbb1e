package io.varve.spark;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.shard.ShardManifest;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaFutureAction;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import scala.Tuple2;

/**
 * Attempts that run beside their job's end, through the real {@link ShardTask} in real Spark tasks
 * and the real {@link JobCommit} on the driver: an attempt still running when the driver aborts
 * the job must leave nothing behind. The records are random (a fixed seed, printed) and checked
 * against a {@link HashMap}.
 */
class ConcurrentAttemptTest {
  private static final int SHARDS = 4;
  private static final long SEED = 0xC0_4C_A7_7E_5EEDL;
  private static final long WAIT_SECONDS = 60;

  /** The attempts in the order their tasks finished, reported from inside the tasks (local mode: one JVM). */
  private static final Queue<ShardAttempt> FINISHED = new ConcurrentLinkedQueue<>();

  private static SparkSession spark;
  private static Broadcast<SerializableConfiguration> configuration;
  private static Map<ByteBuffer, byte[]> expected;
  private static List<List<Tuple2<Integer, byte[]>>> recordsOfShard;

  @TempDir Path temp;

  @BeforeAll
  static void startSpark() {
    spark = SparkTestSessions.start("local[2]",
        "spark.hadoop.fs.flaky.impl", FlakyFileSystem.class.getName(),
        "spark.hadoop.fs.flaky.impl.disable.cache", "true");
    if (spark != null) {
      configuration = JavaSparkContext.fromSparkContext(spark.sparkContext())
          .broadcast(new SerializableConfiguration(spark.sparkContext().hadoopConfiguration()));
      routeRecords(VarveWriteOptions.builder(SHARDS).build());
    }
  }

  /** Random records routed by {@link RowRouting}, as a job's shuffle delivers them to each shard's task. */
  private static void routeRecords(VarveWriteOptions options) {
    System.out.printf("ConcurrentAttemptTest: seed %#x%n", SEED);
    Random random = new Random(SEED);
    StructType schema = new StructType().add("k", DataTypes.BinaryType).add("v", DataTypes.BinaryType);
    RowRouting routing = new RowRouting("k", ColumnEncoding.of(schema, "k", "key"), "v", ColumnEncoding.of(schema, "v", "value"),
        options);
    expected = new HashMap<>();
    recordsOfShard = new ArrayList<>();
    for (int i = 0; i < SHARDS; i++) {
      recordsOfShard.add(new ArrayList<>());
    }
    while (expected.size() < 8_000) {
      byte[] key = randomBytes(random, 1 + random.nextInt(20));
      byte[] value = randomBytes(random, random.nextInt(30));
      if (expected.putIfAbsent(ByteBuffer.wrap(key), value) == null) {
        Tuple2<Integer, byte[]> record = routing.call(RowFactory.create(key, value));
        recordsOfShard.get(record._1()).add(record);
      }
    }
  }

  private static byte[] randomBytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  @BeforeEach
  void needsSpark() {
    SparkTestSessions.assumeSpark(spark);
    FINISHED.clear();
  }

  @AfterEach
  void resetFileSystem() {
    FlakyFileSystem.reset();
  }

  @AfterAll
  static void stopSpark() {
    SparkTestSessions.stop(spark);
  }

  private String output(String name) {
    return "flaky://" + temp.resolve(name).toUri().getPath();
  }

  private static Configuration hadoopConfiguration() {
    return spark.sparkContext().hadoopConfiguration();
  }

  /**
   * Starts one Spark job of a task per entry of {@code shards}: task {@code p} builds shard {@code
   * shards[p]} with {@link ShardTask}, as the job of {@link VarveSpark#write} does, and reports its
   * attempt to {@link #FINISHED} as it finishes.
   */
  private static JavaFutureAction<List<ShardAttempt>> startAttempts(JobCommit commit, VarveWriteOptions options, int... shards) {
    List<List<Tuple2<Integer, byte[]>>> inputs = new ArrayList<>();
    for (int shard : shards) {
      inputs.add(recordsOfShard.get(shard));
    }
    ShardTask task = new ShardTask(commit.jobDirectory().toString(), commit.createdOutput(), configuration, options);
    int[] shardOfTask = shards.clone();
    return JavaSparkContext.fromSparkContext(spark.sparkContext())
        .parallelize(inputs, inputs.size())
        .mapPartitionsWithIndex((partition, input) -> {
          Iterator<ShardAttempt> attempt = task.call(shardOfTask[partition], input.next().iterator());
          ShardAttempt finished = attempt.next();
          FINISHED.add(finished);
          return List.of(finished).iterator();
        }, false)
        .collectAsync();
  }

  /** Holds the calling task until {@code release} opens, once it has opened {@code paused}. */
  private static void pause(CountDownLatch paused, CountDownLatch release) throws IOException {
    paused.countDown();
    try {
      if (!release.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
        throw new IOException("the test never released the paused task");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while paused");
    }
  }

  private static boolean inAttemptOf(org.apache.hadoop.fs.Path path, int shard) {
    return path.getParent() != null && path.getParent().getName().startsWith(ShardManifest.shardName(shard) + ".attempt-");
  }

  /**
   * Shard 3's task passes its check that the job runs; then, before it creates its attempt
   * directory ({@code mkdirs}) or its second file ({@code create}), it is held while the driver
   * aborts the job and removes the output; then it goes on. Both calls would make the removed
   * directories again: the task creates its files non-recursively, and removes the job directory
   * its {@code mkdirs} made again (it lacks {@value JobCommit#RUNNING}) with the output this job
   * created; so it fails and the output stays removed.
   */
  @ParameterizedTest
  @ValueSource(strings = {"mkdirs", "create"})
  void anAttemptStillRunningWhenTheJobIsAbortedLeavesNothing(String heldBefore) throws Exception {
    Path root = temp.resolve("aborted");
    VarveWriteOptions options = VarveWriteOptions.builder(SHARDS).build();
    JobCommit commit = JobCommit.start(new org.apache.hadoop.fs.Path(output("aborted")), hadoopConfiguration());
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch aborted = new CountDownLatch(1);
    FlakyFileSystem.before = (operation, path, attempt) -> {
      boolean attemptDirectory = operation.equals("mkdirs") && path.getName().startsWith(ShardManifest.shardName(3) + ".attempt-");
      boolean secondFile = operation.equals("create") && inAttemptOf(path, 3)
          && FlakyFileSystem.creates.get(path.getParent().getName()).get() == 2;
      if (operation.equals(heldBefore) && (attemptDirectory || secondFile) && held.getCount() > 0) {
        pause(held, aborted);
      }
    };
    JavaFutureAction<List<ShardAttempt>> job = startAttempts(commit, options, 3);
    assertTrue(held.await(WAIT_SECONDS, TimeUnit.SECONDS), "shard 3's task reached its " + heldBefore);
    commit.abort(new IOException("the job failed"));
    assertFalse(Files.exists(root), "the abort removed the output it created");
    aborted.countDown();
    ExecutionException failed = assertThrows(ExecutionException.class, () -> job.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertFalse(Files.exists(root), "the late attempt did not bring the output back");
    String message = failed.getCause().getMessage(); // Spark's, with the task's own
    assertTrue(message.contains("is gone: the job is over"), message);
    assertTrue(FINISHED.isEmpty());
  }
}
