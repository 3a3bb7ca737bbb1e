package io.varve.spark;

import io.varve.core.shard.ShardManifest;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SQLContext;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.sources.BaseRelation;
import org.apache.spark.sql.sources.CreatableRelationProvider;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import scala.collection.immutable.Map;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark's {@code format("varve")}: the writer's conventional entry point, doing what {@link
 * VarveSpark#write} does (same routing, commit protocol and errors).
 *
 * <pre>{@code
 * rows.write().format("varve")
 *     .option("shards", 64)
 *     .option("keyColumn", "user_id")
 *     .option("valueColumn", "profile")
 *     .save("hdfs:///stores/users/v=2026-11-26");
 * }</pre>
 *
 * <p>Options (names in any case): {@code shards} (required, 1 to 65536), {@code keyColumn}
 * (default {@code key}), {@code valueColumn} (default {@code value}), {@code seed}, {@code
 * duplicates} ({@code fail} or {@code last_wins}), {@code nullValuesAsEmpty}, {@code memoryBudget}
 * ({@code 64m}, {@code 1g}), {@code keyMode} ({@code full}, {@code none}, {@code signature:K}),
 * {@code shardFormat} ({@code directory} or {@code artifact}) and {@code localDirectory}: those of
 * {@link VarveWriteOptions}. An unknown option is refused.
 *
 * <p>Save modes: {@code ErrorIfExists} (the default) refuses an output that holds anything, and
 * {@code Ignore} leaves a published store as it is (an output with its {@code _MANIFEST}, which a
 * job writes last) and writes where there is none, as {@code ErrorIfExists} does: what a killed or
 * failed job left (its {@code _temporary}, shards without {@code _MANIFEST}) is no store, so it is
 * not taken for one and skipped without a word, but refused, named, like anything else in the
 * output, since another job may still be writing it. {@code Overwrite} and {@code Append} are
 * refused, since a published store is immutable and serving hosts may be reading it: write each
 * version to a new path. Reading ({@code spark.read().format("varve")}) is not offered: stores are served by {@code
 * ShardedStore}, not scanned.
 *
 * <p>Spark creates one instance per use through {@link java.util.ServiceLoader}; stateless and
 * thread-safe.
 */
public final class VarveDataSource implements CreatableRelationProvider, DataSourceRegister {
  /** What Spark calls for {@code format("varve")}. */
  public VarveDataSource() {}

  @Override
  public String shortName() {
    return "varve";
  }

  @Override
  public BaseRelation createRelation(SQLContext sqlContext, SaveMode mode, Map<String, String> parameters, Dataset<Row> data) {
    DataSourceOptions options = DataSourceOptions.parse(CollectionConverters.asJava(parameters));
    try {
      switch (mode) {
        case Overwrite, Append -> throw new IllegalArgumentException("format(\"varve\") does not support SaveMode." + mode
            + ": a published store is immutable and may be served; write each version to a new path ("
            + options.path() + " is " + (holdsAnything(data, options.path()) ? "not empty" : "empty") + ")");
        case Ignore -> {
          if (holdsPublishedStore(data, options.path())) {
            return new WrittenRelation(sqlContext, data.schema());
          }
        }
        default -> { } // ErrorIfExists: VarveSpark.write refuses an output that holds anything
      }
      VarveSpark.write(data, options.keyColumn(), options.valueColumn(), options.path(), options.writeOptions());
    } catch (IOException e) {
      throw new UncheckedIOException("writing " + options.path() + ": " + e.getMessage(), e);
    }
    return new WrittenRelation(sqlContext, data.schema());
  }

  /**
   * Whether {@code path} holds a published store: its {@code _MANIFEST}, written last by the job
   * that wrote it. A killed job's leftovers have none.
   */
  private static boolean holdsPublishedStore(Dataset<Row> data, String path) throws IOException {
    Path manifest = new Path(path, ShardManifest.FILE_NAME);
    FileSystem fileSystem = manifest.getFileSystem(data.sparkSession().sparkContext().hadoopConfiguration());
    return fileSystem.exists(manifest) && fileSystem.getFileStatus(manifest).isFile();
  }

  /** Whether {@code path} exists as a file or as a directory that is not empty. */
  private static boolean holdsAnything(Dataset<Row> data, String path) throws IOException {
    Path output = new Path(path);
    FileSystem fileSystem = output.getFileSystem(data.sparkSession().sparkContext().hadoopConfiguration());
    if (!fileSystem.exists(output)) {
      return false;
    }
    FileStatus status = fileSystem.getFileStatus(output);
    return status.isFile() || fileSystem.listStatus(output).length > 0;
  }

  /** What Spark asks of a written relation: its context and schema. */
  private static final class WrittenRelation extends BaseRelation {
    private final SQLContext sqlContext;
    private final StructType schema;

    WrittenRelation(SQLContext sqlContext, StructType schema) {
      this.sqlContext = sqlContext;
      this.schema = schema;
    }

    @Override
    public SQLContext sqlContext() {
      return sqlContext;
    }

    @Override
    public StructType schema() {
      return schema;
    }
  }
}
