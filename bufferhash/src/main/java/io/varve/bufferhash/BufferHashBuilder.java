package io.varve.bufferhash;

import io.varve.core.files.ExclusiveUse;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.HeapLimit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Configures and opens a BufferHash. A new directory needs {@link #logBytes} and {@link
 * #memoryBytes}; an existing one keeps its log size, partitioning, seed and table id, and takes
 * the RAM budget given now. Not thread-safe.
 */
public final class BufferHashBuilder {
  final Path directory;
  long logBytes;
  long memoryBytes;
  int entryBytes = 32;
  int bufferBytes;
  int superTables;
  /** The hash seed of a new table: null draws one at random ({@link #newSeed}). */
  Long seed;
  /** The id of a new table: null draws one at random ({@link #newTableId}). */
  Long tableId;
  EvictionPolicy policy = EvictionPolicy.fifo();
  EvictionListener listener;
  boolean syncEveryFlush;
  Durability durability = Durability.BUFFERS_IN_RAM;
  long walSegmentBytes;
  boolean dropDamagedWriteAheadTail;

  BufferHashBuilder(Path directory) {
    this.directory = Objects.requireNonNull(directory, "directory");
  }

  /**
   * Bytes of SSD for the log (a new table only; rounded down to 4 KiB pages, at most {@link
   * BufferHashTuning#MAX_LOG_BYTES}).
   */
  public BufferHashBuilder logBytes(long logBytes) {
    this.logBytes = logBytes;
    return this;
  }

  /** Bytes of RAM for buffers, Bloom filters and everything else the table keeps in memory. */
  public BufferHashBuilder memoryBytes(long memoryBytes) {
    this.memoryBytes = memoryBytes;
    return this;
  }

  /** Typical key plus value bytes, to size buffers and filters (default 32). */
  public BufferHashBuilder entryBytes(int entryBytes) {
    this.entryBytes = entryBytes;
    return this;
  }

  /** Bytes of each buffer (default: chosen by {@link BufferHashTuning}). */
  public BufferHashBuilder bufferBytes(int bufferBytes) {
    this.bufferBytes = bufferBytes;
    return this;
  }

  /** Partitions of the key space of a new table, each with its own buffer (default: chosen by {@link BufferHashTuning}). */
  public BufferHashBuilder superTables(int superTables) {
    this.superTables = superTables;
    return this;
  }

  /**
   * The hash seed of a new table (default: random, drawn by {@link java.security.SecureRandom}).
   * The seed places keys in super tables; a fixed, known one lets a client craft keys that all
   * land in one super table and force early evictions. An existing table keeps the seed its state
   * records, whatever is given here.
   */
  public BufferHashBuilder seed(long seed) {
    this.seed = seed;
    return this;
  }

  /**
   * The id of a new table, which salts every check it writes (docs/FORMAT.md, "BufferHash
   * directory"), instead of a random one: for tests and golden files that must be the same byte
   * for byte. 0 makes an unsalted table, as before state version 3 (state version 2, version-1
   * structures). An existing table keeps its own.
   */
  BufferHashBuilder tableId(long tableId) {
    this.tableId = tableId;
    return this;
  }

  /**
   * A random id, never 0: drawn by {@link java.security.SecureRandom}, so that two tables, even
   * created with the same seed at the same moment, have different ids.
   */
  static long newTableId() {
    java.security.SecureRandom random = new java.security.SecureRandom();
    long id;
    do {
      id = random.nextLong();
    } while (id == 0);
    return id;
  }

  /**
   * A random seed for a new table. Before, every table's default was the public constant
   * 0x5EEDB0FF, so keys could be crafted offline to pile into one super table.
   */
  static long newSeed() {
    return new java.security.SecureRandom().nextLong();
  }

  /** What eviction keeps (default {@link EvictionPolicy#fifo()}). */
  public BufferHashBuilder evictionPolicy(EvictionPolicy policy) {
    this.policy = Objects.requireNonNull(policy, "policy");
    return this;
  }

  /** Told of every current entry that eviction drops. Costs a read of each evicted incarnation. */
  public BufferHashBuilder evictionListener(EvictionListener listener) {
    this.listener = listener;
    return this;
  }

  /** What survives a crash (default {@link Durability#BUFFERS_IN_RAM}, as in the paper). */
  public BufferHashBuilder durability(Durability durability) {
    this.durability = Objects.requireNonNull(durability, "durability");
    return this;
  }

  /** Bytes after which the write-ahead log starts a new segment (tests make it small to exercise retiring). */
  BufferHashBuilder walSegmentBytes(long bytes) {
    this.walSegmentBytes = bytes;
    return this;
  }

  /**
   * Forces the log to the device after every flush (default: on {@link BufferHash#sync} and close,
   * and when eviction reaches incarnations written since; the state is forced at every eviction).
   */
  public BufferHashBuilder syncEveryFlush(boolean sync) {
    this.syncEveryFlush = sync;
    return this;
  }

  /**
   * Whether opening drops a damaged record of the write-ahead log's newest segment together with
   * every record after it, instead of refusing the table (default: refuse). A power loss can keep
   * later pages of writes not yet synced and lose earlier ones (the kernel writes pages back in no
   * set order): the hole reads as damage with records after it. Synced writes lie before any such
   * hole; damage the device did to them would drop them too, which is why this is not the default.
   * A drop is logged (System.Logger, WARNING) with its offset and bytes.
   */
  public BufferHashBuilder dropDamagedWriteAheadTail(boolean drop) {
    this.dropDamagedWriteAheadTail = drop;
    return this;
  }

  /**
   * Creates or opens the table.
   *
   * @throws IllegalArgumentException if the budgets cannot work (the message names the knob), the
   *     RAM budget is larger than the heap's maximum ({@link Runtime#maxMemory}), or a new table's
   *     directory holds other files
   * @throws IllegalStateException if another BufferHash, in this process or another, holds the
   *     directory open
   * @throws CorruptStoreException if a file of an existing table is damaged
   * @throws IOException if a file cannot be read or written (a full disk, a failed {@code fsync}):
   *     the message names the table's directory; nothing of a new table is left behind
   */
  public BufferHash open() throws IOException {
    if (memoryBytes <= 0) {
      throw new IllegalArgumentException("memoryBytes must be set: the RAM budget of buffers and Bloom filters");
    }
    // The Bloom filters are sized to the budget.
    HeapLimit.check(memoryBytes, "memoryBytes " + memoryBytes + " is", ": the RAM budget of buffers and Bloom filters must fit in it");
    Channels.createDirectories(directory); // a new table's name survives a power loss
    if (!Files.exists(directory.resolve("state")) && !Files.exists(directory.resolve("log"))) {
      refuseOccupied(); // before the lock file goes into a directory that is not ours
    }
    ExclusiveUse use = ExclusiveUse.acquire(directory.resolve(LOCK_FILE), true, "a BufferHash");
    IncarnationLog log = null;
    try {
      boolean exists = Files.exists(directory.resolve("state"));
      CorruptStoreException.check(
          exists || !Files.exists(directory.resolve("log")), directory.resolve("state") + " is missing beside the log it describes");
      CorruptStoreException.check(
          !exists || Files.exists(directory.resolve("log")), directory.resolve("log") + " is missing: the state describes it");
      if (exists) {
        log = IncarnationLog.open(directory);
      } else {
        if (logBytes <= 0) {
          throw new IllegalArgumentException("logBytes must be set for a new BufferHash: the SSD budget of its log");
        }
        BufferHashTuning tuning = BufferHashTuning.forBudgets(logBytes, memoryBytes, entryBytes, bufferBytes, superTables);
        log = IncarnationLog.create(directory, (int) Math.min(Integer.MAX_VALUE, logBytes / LogFormat.PAGE_BYTES), tuning.superTables(),
            seed != null ? seed : newSeed(), tableId != null ? tableId : newTableId());
      }
      long pagesBytes = (long) log.totalPages() * LogFormat.PAGE_BYTES;
      BufferHashTuning tuning = BufferHashTuning.forBudgets(pagesBytes, memoryBytes, entryBytes, bufferBytes, log.superTables());
      BufferHash table = new BufferHash(this, use, log, tuning);
      try {
        table.recover();
      } catch (IOException | RuntimeException e) {
        if (table.wal != null) {
          table.wal.close();
        }
        throw e;
      }
      return table;
    } catch (IOException e) {
      release(log, use);
      throw namingTheTable(e);
    } catch (RuntimeException e) {
      release(log, use);
      throw e;
    }
  }

  private static void release(IncarnationLog log, ExclusiveUse use) throws IOException {
    try {
      if (log != null) {
        log.close();
      }
    } finally {
      use.close();
    }
  }

  /**
   * A plain {@code IOException} (the kernel's "No space left on device", "Input/output error")
   * names no file: it gets the table's directory. Typed ones, which name their file, pass as they are.
   */
  private IOException namingTheTable(IOException e) {
    if (e.getClass() == IOException.class) {
      return new IOException("opening the BufferHash in " + directory + ": " + e.getMessage(), e);
    }
    return e;
  }

  /**
   * Refuses to create a table in a directory that holds files (names starting with a dot aside,
   * and the lock file of an earlier open): another store's, a user's (a parent directory given by
   * mistake), or what is left of a table that lost its state and log. Before, the table's log,
   * state and lock went in among them.
   */
  private void refuseOccupied() throws IOException {
    List<String> names;
    try (Stream<Path> files = Files.list(directory)) {
      names = files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".") && !n.equals(LOCK_FILE)).sorted().toList();
    }
    for (String name : names) {
      CorruptStoreException.check(!(name.startsWith("buffers") || name.startsWith("wal-") || name.equals(WalSyncMark.FILE)),
          directory.resolve(name) + " is a BufferHash file, but the table's state and log are missing");
    }
    if (!names.isEmpty()) {
      throw new IllegalArgumentException(directory + " holds no BufferHash but other files, such as " + names.get(0)
          + ": give a new or empty directory");
    }
  }

  private static final String LOCK_FILE = "lock";
}
