package io.varve.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.shard.ShardManifest;
import io.varve.reader.ShardedStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaFutureAction;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import scala.Tuple2;

/**
 * Attempts that run beside another attempt of their shard or beside their job's end, through the
 * real {@link ShardTask} in real Spark tasks and the real {@link JobCommit} on the driver: two
 * attempts of one shard (what a speculative copy makes) both completing, of which the one Spark
 * would accept is published and the other leaves nothing; an attempt still copying when the driver
 * commits or aborts the job, which must leave nothing either. The records are random (a fixed
 * seed, printed) and every published store is checked against a {@link HashMap}.
 *
 * <p>Why the second attempt is started by the test rather than by {@code spark.speculation}: Spark
 * launches no speculative copy in local mode, which is all CI runs. {@code TaskSchedulerImpl.start()}
 * starts the thread that looks for slow tasks only {@code if (!isLocal &&
 * conf.get(SPECULATION_ENABLED))}, and {@code SparkContext.createTaskScheduler} makes the scheduler
 * of {@code local}, {@code local[N]} and {@code local[N,F]} with {@code isLocal = true}; besides,
 * {@code TaskSetManager.dequeueTaskFromList} never runs a speculative copy on a host where the task
 * has an attempt ({@code !(speculative && hasAttemptOnHost(index, host))}), and every local executor
 * is on one host (so {@code local-cluster}, which also needs a Spark distribution, would not do
 * either). Checked against Spark 4.0.1's classes; {@link #sparkLaunchesNoSpeculativeCopyInLocalMode}
 * fails the day that changes, so that this class gets a real speculative job then.
 */
class ConcurrentAttemptTest {
  private static final int SHARDS = 4;
  /** The shard two tasks build in the speculation cases: task {@code SHARDS} is its second attempt. */
  private static final int DUPLICATED = 2;
  private static final long SEED = 0xC0_4C_A7_7E_5EEDL;
  private static final long WAIT_SECONDS = 60;

  /** The attempts in the order their tasks finished, reported from inside the tasks (local mode: one JVM). */
  private static final Queue<ShardAttempt> FINISHED = new ConcurrentLinkedQueue<>();

  /** How many times the slow task of {@link #sparkLaunchesNoSpeculativeCopyInLocalMode} started. */
  private static final AtomicInteger SLOW_TASK_STARTS = new AtomicInteger();

  private static SparkSession spark;
  private static Broadcast<SerializableConfiguration> configuration;
  private static Map<ByteBuffer, byte[]> expected;
  private static List<List<Tuple2<Integer, byte[]>>> recordsOfShard;

  @TempDir Path temp;

  @BeforeAll
  static void startSpark() {
    // Speculation on, eager: in a cluster, a task running 100 ms once half of its stage is done gets a copy.
    spark = SparkTestSessions.start("local[2]",
        "spark.hadoop.fs.flaky.impl", FlakyFileSystem.class.getName(),
        "spark.hadoop.fs.flaky.impl.disable.cache", "true",
        "spark.speculation", "true",
        "spark.speculation.interval", "50ms",
        "spark.speculation.quantile", "0.5",
        "spark.speculation.multiplier", "1.5",
        "spark.speculation.minTaskRuntime", "100ms",
        "spark.speculation.efficiency.enabled", "false");
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
        Tuple2<Integer, byte[]> record = routing.call(new GenericInternalRow(new Object[] {key, value}));
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
    SLOW_TASK_STARTS.set(0);
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

  /** Every key answers as the map, absent keys are absent, verify passes, and the root holds the shards and the manifest only. */
  private static void assertPublished(Path root, ShardFormat format) throws IOException {
    try (ShardedStore store = ShardedStore.open(root)) {
      assertEquals(expected.size(), store.size());
      for (Map.Entry<ByteBuffer, byte[]> entry : expected.entrySet()) {
        assertArrayEquals(entry.getValue(), store.get(entry.getKey().array()), String.format("seed %#x", SEED));
      }
      Random random = new Random(~SEED);
      for (int absent = 0; absent < 500; ) {
        byte[] key = randomBytes(random, 1 + random.nextInt(20));
        if (!expected.containsKey(ByteBuffer.wrap(key))) {
          assertNull(store.get(key), String.format("seed %#x", SEED));
          absent++;
        }
      }
      store.verify();
    }
    List<String> names = new ArrayList<>();
    for (int i = 0; i < SHARDS; i++) {
      names.add(format.publishedName(i));
    }
    names.add(ShardManifest.FILE_NAME);
    assertEquals(names.stream().sorted().toList(), fileNames(root), "the shards and the manifest, no _temporary");
  }

  private static List<String> fileNames(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  /** The first attempt of each shard to finish: the one Spark accepts (a later one's result is ignored). */
  private static List<ShardAttempt> firstAttemptOfEachShard() {
    ShardAttempt[] first = new ShardAttempt[SHARDS];
    for (ShardAttempt attempt : FINISHED) {
      if (first[attempt.shard()] == null) {
        first[attempt.shard()] = attempt;
      }
    }
    return List.of(first);
  }

  /** What the commit renames of {@code attempt}: its directory, or the one artifact in it. */
  private static Path renamedPart(ShardAttempt attempt, ShardFormat format) {
    Path directory = Path.of(new org.apache.hadoop.fs.Path(attempt.attemptPath()).toUri().getPath());
    return format == ShardFormat.ARTIFACT ? directory.resolve(format.publishedName(attempt.shard())) : directory;
  }

  /** The file's identity (device and inode here), which a rename keeps. */
  private static Object fileKey(Path path) throws IOException {
    return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
  }

  @Test
  void sparkLaunchesNoSpeculativeCopyInLocalMode() {
    // Three tasks end at once, one runs 1.5 s: with the session's settings, a cluster would copy it within 0.2 s.
    List<Integer> done = JavaSparkContext.fromSparkContext(spark.sparkContext())
        .parallelize(List.of(0, 1, 2, 3), 4)
        .map(i -> {
          if (i == 0) {
            SLOW_TASK_STARTS.incrementAndGet();
            Thread.sleep(1500);
          }
          return i;
        })
        .collect();
    assertEquals(List.of(0, 1, 2, 3), done);
    assertEquals(1, SLOW_TASK_STARTS.get(), "Spark now speculates in local mode: replace the hand-started duplicates "
        + "of this class with a job of spark.speculation=true and a slow first attempt");
  }

  /**
   * Shard 2 is built by two tasks, as by a task and its speculative copy, and both complete. The
   * driver publishes the attempt that finished first, as Spark accepts the first success: its files
   * (the same inodes) are the published shard, the other attempt's are gone, the store answers.
   */
  @ParameterizedTest
  @EnumSource(ShardFormat.class)
  void twoAttemptsOfAShardBothCompleteAndTheFirstIsPublished(ShardFormat format) throws Exception {
    Path root = temp.resolve("both");
    VarveWriteOptions options = VarveWriteOptions.builder(SHARDS).shardFormat(format).build();
    JobCommit commit = JobCommit.start(new org.apache.hadoop.fs.Path(output("both")), hadoopConfiguration());
    List<ShardAttempt> collected = startAttempts(commit, options, 0, 1, 2, 3, DUPLICATED).get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertEquals(SHARDS + 1, collected.size());
    List<ShardAttempt> accepted = firstAttemptOfEachShard();
    ShardAttempt winner = accepted.get(DUPLICATED);
    ShardAttempt loser = FINISHED.stream()
        .filter(attempt -> attempt.shard() == DUPLICATED && !attempt.attemptPath().equals(winner.attemptPath()))
        .findFirst().orElseThrow();
    Object winnerFile = fileKey(renamedPart(winner, format));
    Object loserFile = fileKey(renamedPart(loser, format));

    ShardManifest manifest = commit.publish(accepted, options);
    assertEquals(winner.entry(), manifest.shards().get(DUPLICATED));
    Object published = fileKey(root.resolve(format.publishedName(DUPLICATED)));
    assertEquals(winnerFile, published, "the first attempt's files are the published shard");
    assertNotEquals(loserFile, published);
    assertFalse(Files.exists(renamedPart(loser, format)), "the other attempt's files are gone");
    assertPublished(root, format);
  }

  /**
   * Shard 2's second task is held before its first file while the other tasks finish and the driver
   * publishes them, as a speculative copy still copying when its job commits; then it goes on. It
   * fails, finding its attempt directory gone, and brings nothing back into the published store.
   */
  @ParameterizedTest
  @EnumSource(ShardFormat.class)
  void anAttemptStillCopyingWhenTheJobCommitsLeavesNothing(ShardFormat format) throws Exception {
    Path root = temp.resolve("committed");
    VarveWriteOptions options = VarveWriteOptions.builder(SHARDS).shardFormat(format).build();
    JobCommit commit = JobCommit.start(new org.apache.hadoop.fs.Path(output("committed")), hadoopConfiguration());
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch committed = new CountDownLatch(1);
    FlakyFileSystem.before = (operation, path, attempt) -> {
      TaskContext task = TaskContext.get();
      if (operation.equals("create") && task != null && task.partitionId() == SHARDS && held.getCount() > 0) {
        pause(held, committed);
      }
    };
    JavaFutureAction<List<ShardAttempt>> job = startAttempts(commit, options, 0, 1, 2, 3, DUPLICATED);
    assertTrue(held.await(WAIT_SECONDS, TimeUnit.SECONDS), "the second attempt of shard 2 reached its first file");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (FINISHED.size() < SHARDS && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(SHARDS, FINISHED.size(), "every shard's first attempt finished");

    commit.publish(firstAttemptOfEachShard(), options);
    committed.countDown();
    ExecutionException failed = assertThrows(ExecutionException.class, () -> job.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertPublished(root, format);
    String message = failed.getCause().getMessage(); // Spark's, with the task's own
    assertTrue(message.contains("is gone: the job is over"), message);
    assertEquals(SHARDS, FINISHED.size(), "the held attempt never finished");
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

  /**
   * The driver's removal of the job directory (on commit or abort) lists it; only then does a late
   * task, which passed its first check that the job runs, create its attempt directory and start
   * copying, and the removal goes on with its stale listing: it cannot remove the directory the
   * task wrote in, and the task completes. An aborted write once left its output so in CI
   * ({@code VarveSparkTest.duplicateKeysFailShowingTheKeyOrTheLastWins}). The task must find the
   * job over after its writes and remove what the removal missed: no {@code _temporary} stays in a
   * published store, and an aborted job's output is gone.
   */
  @ParameterizedTest
  @ValueSource(strings = {"commit", "abort"})
  void aTaskWritingWhileTheRemovalListsTheJobDirectoryLeavesNothing(String end) throws Exception {
    Path root = temp.resolve("raced");
    VarveWriteOptions options = VarveWriteOptions.builder(SHARDS).build();
    JobCommit commit = JobCommit.start(new org.apache.hadoop.fs.Path(output("raced")), hadoopConfiguration());
    int lateTask = end.equals("commit") ? SHARDS : 0;
    int lateShard = end.equals("commit") ? DUPLICATED : 3;
    CountDownLatch reachedMkdirs = new CountDownLatch(1);
    CountDownLatch listed = new CountDownLatch(1);
    AtomicReference<JavaFutureAction<List<ShardAttempt>>> job = new AtomicReference<>();
    AtomicReference<String> lateAttempt = new AtomicReference<>();
    FlakyFileSystem.before = (operation, path, attempt) -> {
      TaskContext task = TaskContext.get();
      if (task != null && task.partitionId() == lateTask && operation.equals("mkdirs")
          && path.getName().startsWith(ShardManifest.shardName(lateShard) + ".attempt-")) {
        lateAttempt.set(path.getName());
        pause(reachedMkdirs, listed);
      } else if (task == null && operation.equals("delete-listed") && path.getName().equals(commit.jobDirectory().getName())) {
        listed.countDown();
        // Until the late task is past its first file, or has ended.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!job.get().isDone() && filesPastTheFirst(lateAttempt.get()) == 0 && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
      }
    };
    job.set(end.equals("commit") ? startAttempts(commit, options, 0, 1, 2, 3, DUPLICATED) : startAttempts(commit, options, 3));
    assertTrue(reachedMkdirs.await(WAIT_SECONDS, TimeUnit.SECONDS), "the late task reached its mkdirs");
    if (end.equals("commit")) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
      while (FINISHED.size() < SHARDS && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertEquals(SHARDS, FINISHED.size(), "every shard's first attempt finished");
      commit.publish(firstAttemptOfEachShard(), options);
    } else {
      commit.abort(new IOException("the job failed"));
    }
    ExecutionException failed = assertThrows(ExecutionException.class, () -> job.get().get(WAIT_SECONDS, TimeUnit.SECONDS),
        "the late task completed in a job directory its driver removed");
    String message = failed.getCause().getMessage(); // Spark's, with the task's own
    assertTrue(message.contains("is gone: the job is over"), message);
    if (end.equals("commit")) {
      assertPublished(root, ShardFormat.DIRECTORY);
    } else {
      assertFalse(Files.exists(root), "the aborted job's output is gone");
    }
  }

  /** How many files the attempt directory {@code name} was given past its first: nonzero once the first is written. */
  private static int filesPastTheFirst(String name) {
    AtomicInteger created = FlakyFileSystem.creates.get(name);
    return created == null ? 0 : Math.max(0, created.get() - 1);
  }
}
