package io.varve.spark;

import io.varve.builder.BuildOptions;
import io.varve.builder.DuplicatePolicy;
import io.varve.core.shard.ShardRouter;
import io.varve.core.store.KeyMode;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How {@link VarveSpark#write} builds a sharded store: the shard count, the routing seed, what to
 * do with repeated keys and null values, each task's build options, and whether a shard is shipped
 * as a directory or as one file. Serializable because every task gets a copy; immutable and
 * thread-safe.
 *
 * <pre>{@code
 * VarveWriteOptions options = VarveWriteOptions.builder(64)
 *     .duplicates(DuplicatePolicy.LAST_WINS)
 *     .memoryBudget(128L << 20)
 *     .shardFormat(ShardFormat.ARTIFACT)
 *     .build();
 * }</pre>
 */
public final class VarveWriteOptions implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * Each task's default memory budget: 64 MiB, a quarter of a single build's, since a task shares its
   * executor's heap with Spark and the executor's other tasks. A shard larger than it spills.
   */
  public static final long DEFAULT_MEMORY_BUDGET = 64L << 20;

  private final int shards;
  private final long seed;
  private final DuplicatePolicy duplicates;
  private final boolean nullValuesAsEmpty;
  private final long memoryBudget;
  private final KeyMode.Kind keyModeKind;
  private final int signatureBits;
  private final String localDirectory;
  private final ShardFormat shardFormat;

  private VarveWriteOptions(Builder builder) {
    this.shards = builder.shards;
    this.seed = builder.seed;
    this.duplicates = builder.duplicates;
    this.nullValuesAsEmpty = builder.nullValuesAsEmpty;
    this.memoryBudget = builder.memoryBudget;
    this.keyModeKind = builder.keyMode.kind();
    this.signatureBits = builder.keyMode.signatureBits();
    this.localDirectory = builder.localDirectory;
    this.shardFormat = builder.shardFormat;
  }

  /**
   * Options for a store of {@code shards} shards (one Spark task each), every other option at its
   * default.
   *
   * @throws IllegalArgumentException unless {@code 1 <= shards <= 65536}
   */
  public static Builder builder(int shards) {
    return new Builder(shards);
  }

  /** The number of shards, and of the tasks that build them. */
  public int shards() {
    return shards;
  }

  /** The seed keys are hashed with to route them (and every shard's first seed); default 0. */
  public long seed() {
    return seed;
  }

  /** What a shard does with a repeated key; default {@link DuplicatePolicy#FAIL}. */
  public DuplicatePolicy duplicates() {
    return duplicates;
  }

  /** Whether a null value is stored as an empty one (default false: a null value fails the job). */
  public boolean nullValuesAsEmpty() {
    return nullValuesAsEmpty;
  }

  /** Each task's memory budget in bytes; beyond it the shard's build spills to local disk. */
  public long memoryBudget() {
    return memoryBudget;
  }

  /** What every shard keeps of its keys; default {@link KeyMode#FULL}. */
  public KeyMode keyMode() {
    return new KeyMode(keyModeKind, signatureBits);
  }

  /**
   * The executor-local directory a task builds its shard in before copying it out; empty for the
   * default, {@link org.apache.spark.SparkFiles#getRootDirectory()} (the executor's working
   * directory, or the driver's temporary directory in local mode).
   */
  public Optional<String> localDirectory() {
    return Optional.ofNullable(localDirectory);
  }

  /**
   * How each shard is laid out in the output: a store directory (default {@link
   * ShardFormat#DIRECTORY}) or a one-file artifact ({@link ShardFormat#ARTIFACT}).
   */
  public ShardFormat shardFormat() {
    return shardFormat;
  }

  /** The router of the store's keys. */
  ShardRouter router() {
    return ShardRouter.of(seed, shards);
  }

  /** A task's build options: this memory budget and key mode, spilling into {@code temporary}. */
  BuildOptions buildOptions(Path temporary) {
    return BuildOptions.builder().memoryBudget(memoryBudget).keyMode(keyMode()).temporaryDirectory(temporary).build();
  }

  @Override
  public String toString() {
    return "VarveWriteOptions[shards=" + shards + ", seed=" + seed + ", duplicates=" + duplicates + ", nullValuesAsEmpty="
        + nullValuesAsEmpty + ", memoryBudget=" + memoryBudget + ", keyMode=" + keyMode() + ", shardFormat=" + shardFormat
        + (localDirectory == null ? "" : ", localDirectory=" + localDirectory) + "]";
  }

  /** Builds {@link VarveWriteOptions}; each setter checks its value at once. Not thread-safe. */
  public static final class Builder {
    private final int shards;
    private long seed;
    private DuplicatePolicy duplicates = DuplicatePolicy.FAIL;
    private boolean nullValuesAsEmpty;
    private long memoryBudget = DEFAULT_MEMORY_BUDGET;
    private KeyMode keyMode = KeyMode.FULL;
    private String localDirectory;
    private ShardFormat shardFormat = ShardFormat.DIRECTORY;

    private Builder(int shards) {
      ShardRouter.checkShardCount(shards);
      this.shards = shards;
    }

    /** The routing seed (default 0); a reader learns it from the manifest. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** What to do with a key that repeats: fail showing it (default), or keep the last value seen. */
    public Builder duplicates(DuplicatePolicy policy) {
      this.duplicates = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** Store a null value as an empty value instead of failing the job (default false). */
    public Builder nullValuesAsEmpty(boolean asEmpty) {
      this.nullValuesAsEmpty = asEmpty;
      return this;
    }

    /**
     * Each task's memory budget (default 64 MiB): keep it well under the executor memory divided
     * by its cores, since the builder's buffers live on the heap beside Spark's.
     *
     * @throws IllegalArgumentException under {@link BuildOptions#MIN_MEMORY_BUDGET}
     */
    public Builder memoryBudget(long bytes) {
      BuildOptions.builder().memoryBudget(bytes);
      this.memoryBudget = bytes;
      return this;
    }

    /** What every shard keeps of its keys (default {@link KeyMode#FULL}). */
    public Builder keyMode(KeyMode mode) {
      this.keyMode = Objects.requireNonNull(mode, "mode");
      return this;
    }

    /** The executor-local directory tasks build in (default: Spark's, see {@link VarveWriteOptions#localDirectory()}). */
    public Builder localDirectory(String directory) {
      this.localDirectory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    /**
     * Ship each shard as a store directory (default) or, with {@link ShardFormat#ARTIFACT}, as the
     * one file {@code shard-XXXXX.varve} that a serving host maps in place: each task packs its
     * shard locally and copies one file through the Hadoop file system.
     */
    public Builder shardFormat(ShardFormat format) {
      this.shardFormat = Objects.requireNonNull(format, "format");
      return this;
    }

    /** The options. */
    public VarveWriteOptions build() {
      return new VarveWriteOptions(this);
    }
  }
}
