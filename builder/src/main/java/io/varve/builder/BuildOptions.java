package io.varve.builder;

import io.varve.core.index.IndexKind;
import io.varve.core.index.IndexParameters;
import io.varve.core.store.KeyMode;
import io.varve.core.store.PageCacheWrites;
import io.varve.core.store.RecordBlocks;
import io.varve.core.store.RecordChecksum;
import io.varve.core.store.RecordFormat;
import io.varve.core.store.StoreFile;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * How a store is written, for whatever writes one: {@link StoreBuilder}, {@link StoreMerger} and
 * {@link StoreReindexer}. Memory budget, temporary directory, index kind and knobs, dense or
 * sparse, key mode, page alignment, record checksums, data writes, progress listener and user
 * metadata.
 *
 * <pre>{@code
 * BuildOptions options = BuildOptions.builder()
 *     .memoryBudget(1L << 30)
 *     .pageAlignment(0)
 *     .sparseIndex(64 << 10)
 *     .build();                       // checked here, whatever the order of the calls above
 * try (StoreBuilder builder = StoreBuilder.create(target, options)) { ... }
 * }</pre>
 *
 * <p>Each setter of {@link Builder} checks its own value at once; {@link Builder#build()} checks
 * how the values go together (a sparse index needs full keys, an ECT index and a block size that
 * suits the page alignment), so the outcome does not depend on the order of the calls. Errors are
 * {@link IllegalArgumentException}s whose message ends with the options' names, for example
 * {@code (options sparseIndex, pageAlignment)}.
 *
 * <p>Options left unset ({@link #pageAlignment}, {@link #keyMode}, {@link #indexParameters}) take
 * the default of whoever uses them: a build takes {@value #DEFAULT_PAGE_ALIGNMENT}-byte pages,
 * full keys, and pages ({@link io.varve.core.store.PagedParameters}) for variable-size records or
 * {@link StoreBuilder#DEFAULT_INDEX} for fixed-size ones; a merge takes the old stores' settings.
 *
 * <p>An immutable value; thread-safe. The {@link Builder} is not thread-safe.
 */
public final class BuildOptions {
  /**
   * The default memory budget on a heap of 1 GiB or more: 256 MiB. A smaller heap gets a quarter of
   * itself ({@link #defaultMemoryBudget()}).
   */
  public static final long DEFAULT_MEMORY_BUDGET = 256L << 20;

  /** The smallest memory budget accepted: 2 MiB. */
  public static final long MIN_MEMORY_BUDGET = 2L << 20;

  /** The page alignment of a new store unless set: 4096 bytes. */
  public static final int DEFAULT_PAGE_ALIGNMENT = StoreFile.DATA_PAYLOAD_OFFSET;

  /** The block size that asks for a dense index (a rank per key). */
  public static final int DENSE = 0;

  /** Every option at its default. */
  public static final BuildOptions DEFAULTS = builder().build();

  /**
   * The memory budget unless one is set: {@value #DEFAULT_MEMORY_BUDGET} bytes, or a quarter of this
   * JVM's maximum heap when that is less (at least {@value #MIN_MEMORY_BUDGET}). The sort's buffers
   * are not all the build holds: with 256 MiB of buffers a heap of 300 MiB ran out of memory.
   */
  public static long defaultMemoryBudget() {
    long heap = Runtime.getRuntime().maxMemory();
    return heap == Long.MAX_VALUE ? DEFAULT_MEMORY_BUDGET : Math.max(MIN_MEMORY_BUDGET, Math.min(DEFAULT_MEMORY_BUDGET, heap / 4));
  }

  private final long memoryBudget;
  private final Path temporaryDirectory;
  private final IndexParameters indexParameters;
  private final int sparseBlockBytes;
  private final Integer pageAlignment;
  private final KeyMode keyMode;
  private final boolean recordChecksums;
  /** Null: a new salt for each data file written. */
  private final Long recordCheckSalt;
  private final PageCacheWrites dataWrites;
  private final BuildListener listener;
  private final SortedMap<String, String> metadata;

  private BuildOptions(Builder b) {
    this.memoryBudget = b.memoryBudget;
    this.temporaryDirectory = b.temporaryDirectory;
    this.indexParameters = b.indexParameters;
    this.sparseBlockBytes = b.sparseBlockBytes;
    this.pageAlignment = b.pageAlignment;
    this.keyMode = b.keyMode;
    this.recordChecksums = b.recordChecksums;
    this.recordCheckSalt = b.recordCheckSalt;
    this.dataWrites = b.dataWrites;
    this.listener = b.listener;
    this.metadata = Collections.unmodifiableSortedMap(new TreeMap<>(b.metadata));
  }

  /** Starts from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding these options, to change some of them. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Bytes of memory for the sort's record buffers. */
  public long memoryBudget() {
    return memoryBudget;
  }

  /** Where temporary files go; empty: beside the new store (on its file system). */
  public Optional<Path> temporaryDirectory() {
    return Optional.ofNullable(temporaryDirectory);
  }

  /** The index kind and knobs of the new store; empty: the user's default (see the class comment). */
  public Optional<IndexParameters> indexParameters() {
    return Optional.ofNullable(indexParameters);
  }

  /** The block size of a sparse index, or {@link #DENSE}. */
  public int sparseBlockBytes() {
    return sparseBlockBytes;
  }

  /** Whether the new store's records are packed into pages found through a page table (index kind paged). */
  public boolean isPaged() {
    return indexParameters != null && indexParameters.kind() == IndexKind.PAGED;
  }

  /** Whether the new store gets a sparse index. */
  public boolean isSparse() {
    return sparseBlockBytes != DENSE;
  }

  /** The page size records are aligned to (0: none); empty: the user's default. */
  public OptionalInt pageAlignment() {
    return pageAlignment == null ? OptionalInt.empty() : OptionalInt.of(pageAlignment);
  }

  /** What records keep of their keys; empty: the user's default. */
  public Optional<KeyMode> keyMode() {
    return Optional.ofNullable(keyMode);
  }

  /** Whether each record ends with a 4-byte checksum. */
  public boolean recordChecksums() {
    return recordChecksums;
  }

  /** The salt of the record checks as set ({@link Builder#recordCheckSalt}); empty: a new one for each data file. */
  public OptionalLong recordCheckSalt() {
    return recordCheckSalt == null ? OptionalLong.empty() : OptionalLong.of(recordCheckSalt);
  }

  /** The salt for a data file written now: as set, else a new one ({@link RecordChecksum#newSalt()}). */
  long recordCheckSaltForNewFile() {
    return recordCheckSalt != null ? recordCheckSalt : RecordChecksum.newSalt();
  }

  /**
   * How a build's data file is handed to the kernel: as set, else {@link PageCacheWrites#UNCACHED}
   * (a merge's default is {@link PageCacheWrites#SMALL} instead, see {@link StoreMerger#dataWrites}).
   */
  public PageCacheWrites dataWrites() {
    return dataWrites(PageCacheWrites.UNCACHED);
  }

  /** How the data file is handed to the kernel: as set, else {@code unset}. */
  PageCacheWrites dataWrites(PageCacheWrites unset) {
    return dataWrites == null ? unset : dataWrites;
  }

  /** Receives progress reports. */
  public BuildListener listener() {
    return listener;
  }

  /** User metadata entries for the new store's meta file (unmodifiable, sorted). */
  public SortedMap<String, String> metadata() {
    return metadata;
  }

  /**
   * Checks the sparse block size against the page alignment the store will have, once it is known
   * (an unset alignment is decided by whoever writes the store).
   *
   * @throws IllegalArgumentException if the block size does not suit {@code pageBytes}
   */
  void checkBlocksSuit(int pageBytes) {
    if (isPaged() && pageBytes == 0) {
      throw new IllegalArgumentException("a paged store packs its records into pages: page alignment 0 cannot be paged"
          + " (options pageAlignment, indexParameters)");
    }
    if (isSparse() && !RecordBlocks.isValidBlockSize(sparseBlockBytes, pageBytes)) {
      throw new IllegalArgumentException(
          pageBytes == 0
              ? "block size " + sparseBlockBytes + " is not a power of two from 512 bytes to 1 MiB (option sparseIndex)"
              : "block size " + sparseBlockBytes + " does not suit page alignment " + pageBytes
                  + ": use the page size, or turn alignment off (0) for any power of two from 512 bytes to 1 MiB"
                  + " (options sparseIndex, pageAlignment)");
    }
  }

  /**
   * Checks that a store keeping keys as {@code mode} can have the index asked for.
   *
   * @throws IllegalArgumentException if the index is sparse and {@code mode} keeps no full keys
   */
  void checkKeysSuit(KeyMode mode) {
    if (isPaged() && !mode.keepsKeys()) {
      throw new IllegalArgumentException(
          "a paged store needs full keys: key mode " + mode + " cannot be paged, its pages are searched by key"
              + " (options keyMode, indexParameters)");
    }
    if (isSparse() && !mode.keepsKeys()) {
      throw new IllegalArgumentException(
          "a sparse index needs full keys: key mode " + mode + " cannot be sparse, its blocks are searched by key"
              + " (options keyMode, sparseIndex)");
    }
  }

  @Override
  public String toString() {
    return "BuildOptions[memoryBudget=" + memoryBudget + ", temporaryDirectory=" + temporaryDirectory
        + ", indexParameters=" + indexParameters + ", sparseBlockBytes=" + sparseBlockBytes + ", pageAlignment="
        + pageAlignment + ", keyMode=" + keyMode + ", recordChecksums=" + recordChecksums
        + (recordCheckSalt == null ? "" : ", recordCheckSalt=" + recordCheckSalt) + ", dataWrites=" + (dataWrites == null ? "default" : dataWrites)
        + ", metadata=" + metadata + "]";
  }

  /**
   * Collects options; {@link #build()} checks them together. Setters return this builder and
   * throw {@link NullPointerException} for null, {@link IllegalArgumentException} for a value
   * outside the option's range. Not thread-safe.
   */
  public static final class Builder {
    private long memoryBudget = defaultMemoryBudget();
    private Path temporaryDirectory;
    private IndexParameters indexParameters;
    private int sparseBlockBytes = DENSE;
    private Integer pageAlignment;
    private KeyMode keyMode;
    private boolean recordChecksums = true;
    private Long recordCheckSalt;
    /** Null until set: builds and merges default differently. */
    private PageCacheWrites dataWrites;
    private BuildListener listener = BuildListener.NONE;
    private final SortedMap<String, String> metadata = new TreeMap<>();

    private Builder() {}

    private Builder(BuildOptions options) {
      memoryBudget = options.memoryBudget;
      temporaryDirectory = options.temporaryDirectory;
      indexParameters = options.indexParameters;
      sparseBlockBytes = options.sparseBlockBytes;
      pageAlignment = options.pageAlignment;
      keyMode = options.keyMode;
      recordChecksums = options.recordChecksums;
      recordCheckSalt = options.recordCheckSalt;
      dataWrites = options.dataWrites;
      listener = options.listener;
      metadata.putAll(options.metadata);
    }

    /** Bytes of memory for the sort's record buffers (default {@link BuildOptions#defaultMemoryBudget()}, at least 2 MiB). */
    public Builder memoryBudget(long bytes) {
      if (bytes < MIN_MEMORY_BUDGET) {
        throw new IllegalArgumentException("memory budget must be at least " + MIN_MEMORY_BUDGET + " bytes (2 MiB): " + bytes + " (option memoryBudget)");
      }
      this.memoryBudget = bytes;
      return this;
    }

    /** Where temporary files go (default: the new store's parent directory). */
    public Builder temporaryDirectory(Path directory) {
      this.temporaryDirectory = Objects.requireNonNull(directory, "temporaryDirectory");
      return this;
    }

    /**
     * The index kind and knobs: {@link io.varve.core.blocked.BlockedIndexParameters} for a
     * blocked index, {@link io.varve.core.ect.EctParameters} for an ECT index (the only kind a
     * sparse index can be).
     */
    public Builder indexParameters(IndexParameters parameters) {
      this.indexParameters = Objects.requireNonNull(parameters, "indexParameters");
      return this;
    }

    /**
     * A sparse index over blocks of {@code blockBytes} (a power of two from 512 bytes to 1 MiB,
     * equal to the page alignment unless that is 0), or {@link #DENSE} (the default). The size is
     * checked against the page alignment: by {@link #build()} when the alignment is set, else by
     * whoever decides it (a build: 4096; a merge or a re-index: the store's).
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder sparseIndex(int blockBytes) {
      if (blockBytes < 0) {
        throw new IllegalArgumentException("block size must be 0 (dense) or a power of two from 512 bytes to 1 MiB: " + blockBytes + " (option sparseIndex)");
      }
      this.sparseBlockBytes = blockBytes;
      return this;
    }

    /** The page size records are aligned to: 0 (none) or a power of two from 512 to 4096. */
    public Builder pageAlignment(int pageBytes) {
      if (!RecordFormat.isValidPageSize(pageBytes)) {
        throw new IllegalArgumentException("page alignment must be 0 or a power of two from 512 to 4096: " + pageBytes + " (option pageAlignment)");
      }
      this.pageAlignment = pageBytes;
      return this;
    }

    /** What records keep of their keys. */
    public Builder keyMode(KeyMode mode) {
      this.keyMode = Objects.requireNonNull(mode, "keyMode");
      return this;
    }

    /** Whether each record ends with a 4-byte checksum (default true). */
    public Builder recordChecksums(boolean checked) {
      this.recordChecksums = checked;
      return this;
    }

    /**
     * The salt mixed into every record check (default: a new random one for each data file
     * written, so that a record of another build copied over this one's, intact and at the same
     * place, fails its check). Set it for builds that must be reproducible byte for byte; 0 writes
     * unsalted checks, as meta version 6, which older readers read.
     */
    public Builder recordCheckSalt(long salt) {
      this.recordCheckSalt = salt;
      return this;
    }

    /**
     * How the data file is handed to the kernel (default {@link PageCacheWrites#UNCACHED} for a
     * build, {@link PageCacheWrites#SMALL} for a merge).
     */
    public Builder dataWrites(PageCacheWrites writes) {
      this.dataWrites = Objects.requireNonNull(writes, "dataWrites");
      return this;
    }

    /** Receives progress reports (default: none). */
    public Builder listener(BuildListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Adds or replaces a user metadata entry. */
    public Builder metadata(String key, String value) {
      metadata.put(Objects.requireNonNull(key, "metadata key"), Objects.requireNonNull(value, "metadata value"));
      return this;
    }

    /** The memory budget set so far (a merge sizes its batch's sort with it before the options are checked). */
    long memoryBudget() {
      return memoryBudget;
    }

    /** The temporary directory set so far, or null. */
    Path temporaryDirectory() {
      return temporaryDirectory;
    }

    /** The listener set so far. */
    BuildListener listener() {
      return listener;
    }

    /**
     * Checks the options together and returns them as a value.
     *
     * @throws IllegalArgumentException naming the option that conflicts with another
     */
    public BuildOptions build() {
      BuildOptions options = new BuildOptions(this);
      if (options.isPaged()) {
        if (keyMode != null) {
          options.checkKeysSuit(keyMode);
        }
        if (pageAlignment != null) {
          options.checkBlocksSuit(pageAlignment);
        }
      }
      if (options.isSparse()) {
        if (indexParameters != null && indexParameters.kind() != IndexKind.ECT) {
          throw new IllegalArgumentException(
              "a sparse index is an ECT index: it cannot be " + indexParameters + " (options indexParameters, sparseIndex)");
        }
        if (keyMode != null) {
          options.checkKeysSuit(keyMode);
        }
        if (pageAlignment != null) {
          options.checkBlocksSuit(pageAlignment);
        }
      }
      return options;
    }
  }
}
