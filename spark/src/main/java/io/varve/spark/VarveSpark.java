package io.varve.spark;

import io.varve.core.shard.ShardManifest;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkException;
import org.apache.spark.SparkJobInfo;
import org.apache.spark.SparkStageInfo;
import org.apache.spark.api.java.JavaFutureAction;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.JavaSparkStatusTracker;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.ShuffledRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.util.SerializableConfiguration;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Writes a Spark {@link Dataset} as a sharded Varve store, in one call:
 *
 * <pre>{@code
 * ShardManifest manifest = VarveSpark.write(rows, "user_id", "profile", "hdfs:///stores/users/v=2026-11-26",
 *     VarveWriteOptions.builder(64).build());
 * }</pre>
 *
 * <p>Each row goes to the shard its key's own hash names ({@link io.varve.core.shard.ShardRouter},
 * the store's XXH3-128 and seed), through a {@link ShardPartitioner} whose partition {@code i} is
 * shard {@code i}; one task per shard builds it in its executor's local directory (bounded memory,
 * spilling), as a store directory or as one {@code .varve} artifact ({@link
 * VarveWriteOptions#shardFormat()}), and copies it through the Hadoop {@code FileSystem} API (file:,
 * hdfs:, s3a:, ...) to an attempt directory (moves it, on file:); the driver publishes the attempts
 * Spark accepted and writes {@code _MANIFEST} last ({@link JobCommit}). A serving host opens the output with {@code ShardedStore.open}.
 *
 * <p>Columns: binary as is, string as UTF-8, long as 8 bytes big-endian; other types are refused
 * with the column named. A null key fails the job; so does a null value unless {@link
 * VarveWriteOptions#nullValuesAsEmpty()}.
 *
 * <p>Stateless and thread-safe: concurrent writes to different outputs are independent Spark jobs.
 */
public final class VarveSpark {
  /** How long the driver waits, after the job, for its last tasks (killed speculative attempts) to end. */
  private static final long STRAGGLER_WAIT_MILLIS = 30_000;

  private VarveSpark() {}

  /**
   * Builds the sharded store of {@code rows} at {@code outputUri}, which must not exist or be an
   * empty directory, and returns its manifest once published.
   *
   * @param rows the records, one per row
   * @param keyColumn the column of the keys: binary, string or long, never null
   * @param valueColumn the column of the values: binary, string or long
   * @param outputUri a Hadoop file system URI or path: {@code file:///...}, {@code hdfs://...}, {@code s3a://...}
   * @param options the shard count and the other options
   * @throws IllegalArgumentException when a column is missing or of another type
   * @throws org.apache.hadoop.fs.FileAlreadyExistsException when the output holds anything: a re-run
   *     writes a new version, to a new path
   * @throws VarveWriteException when the job failed (a null key or value, a duplicate key under
   *     {@link io.varve.builder.DuplicatePolicy#FAIL}, a task failing on every attempt); nothing is
   *     published then
   * @throws IOException when the output cannot be prepared or published; nothing is published then
   */
  public static ShardManifest write(Dataset<Row> rows, String keyColumn, String valueColumn, String outputUri,
      VarveWriteOptions options) throws IOException {
    Objects.requireNonNull(rows, "rows");
    Objects.requireNonNull(outputUri, "outputUri");
    Objects.requireNonNull(options, "options");
    ColumnEncoding keyEncoding = ColumnEncoding.of(rows.schema(), Objects.requireNonNull(keyColumn, "keyColumn"), "key");
    ColumnEncoding valueEncoding = ColumnEncoding.of(rows.schema(), Objects.requireNonNull(valueColumn, "valueColumn"), "value");
    SparkSession spark = rows.sparkSession();
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    JobCommit commit = JobCommit.start(new Path(outputUri), conf);
    Broadcast<SerializableConfiguration> shipped = null;
    try {
      shipped = context.broadcast(new SerializableConfiguration(conf));
      // Spark's internal rows, not Row objects: converting each row cost more than routing it.
      JavaPairRDD<Integer, byte[]> routed = rows.select(column(keyColumn), column(valueColumn)).queryExecution().toRdd().toJavaRDD()
          .mapToPair(new RowRouting(keyColumn, keyEncoding, valueColumn, valueEncoding, options));
      JavaRDD<byte[]> attempts = byShard(routed, options.shards())
          .mapPartitionsWithIndex(new ShardTask(commit.jobDirectory().toString(), commit.createdOutput(), shipped, options), false)
          .map(ShardAttempt::toBytes) // what every serializer passes: see ShardAttempt
          .setName("varve shards of " + commit.output());
      List<ShardAttempt> accepted = run(context, attempts, commit.output()).stream().map(ShardAttempt::fromBytes).toList();
      return commit.publish(accepted, options);
    } catch (IOException | RuntimeException | Error e) {
      commit.abort(e);
      throw e;
    } finally {
      if (shipped != null) {
        shipped.destroy();
      }
    }
  }

  /**
   * The routed records shuffled so that partition {@code i} holds shard {@code i}, serialized by
   * {@link ShardRecordSerializer} whatever the session's serializer: Java serialization's object
   * streams made a local build of 8 + 8 byte records 2.4 times slower, Kryo's (without reference
   * tracking) still took a sixth of its samples (docs/benchmarks/sharded).
   */
  private static JavaPairRDD<Integer, byte[]> byShard(JavaPairRDD<Integer, byte[]> routed, int shards) {
    ShuffledRDD<Integer, byte[], byte[]> shuffled =
        new ShuffledRDD<>(routed.rdd(), new ShardPartitioner(shards), SHARD_TAG, RECORD_TAG, RECORD_TAG);
    shuffled.setSerializer(new ShardRecordSerializer());
    return JavaPairRDD.fromRDD(shuffled, SHARD_TAG, RECORD_TAG);
  }

  private static final ClassTag<Integer> SHARD_TAG = ClassTag$.MODULE$.apply(Integer.class);
  private static final ClassTag<byte[]> RECORD_TAG = ClassTag$.MODULE$.apply(byte[].class);

  private static Column column(String name) {
    return functions.col("`" + name.replace("`", "``") + "`");
  }

  /**
   * Runs the job: its result per partition is the attempt Spark accepted. Then waits until none of
   * its tasks runs, so that no straggler writes into the job directory once it is removed.
   */
  private static List<byte[]> run(JavaSparkContext context, JavaRDD<byte[]> attempts, Path output) {
    JavaFutureAction<List<byte[]>> job = attempts.collectAsync();
    try {
      return job.get();
    } catch (InterruptedException e) {
      job.cancel(true);
      Thread.currentThread().interrupt();
      throw new VarveWriteException("interrupted while writing " + output + ": nothing was published", e);
    } catch (ExecutionException e) {
      Throwable failure = taskFailure(e.getCause());
      throw new VarveWriteException("writing " + output + " failed, nothing was published: " + failure, e.getCause());
    } finally {
      awaitTasks(context.statusTracker(), job.jobIds());
    }
  }

  /** The task's own exception inside Spark's, when Spark kept it. */
  private static Throwable taskFailure(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof SparkException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  private static void awaitTasks(JavaSparkStatusTracker tracker, List<Integer> jobs) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STRAGGLER_WAIT_MILLIS);
    while (running(tracker, jobs) && System.nanoTime() < deadline) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static boolean running(JavaSparkStatusTracker tracker, List<Integer> jobs) {
    for (int id : jobs) {
      SparkJobInfo job = tracker.getJobInfo(id);
      if (job == null) {
        continue;
      }
      for (int stageId : job.stageIds()) {
        SparkStageInfo stage = tracker.getStageInfo(stageId);
        if (stage != null && stage.numActiveTasks() > 0) {
          return true;
        }
      }
    }
    return false;
  }
}
