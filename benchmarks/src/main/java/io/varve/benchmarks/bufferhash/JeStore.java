package io.varve.benchmarks.bufferhash;

import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.DatabaseException;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.LockMode;
import com.sleepycat.je.OperationStatus;
import com.sleepycat.je.StatsConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Berkeley DB Java Edition: one B+tree database in a non-transactional environment whose cache
 * (on the Java heap) takes {@value #CACHE_SHARE} of the RAM budget, the rest being the heap's room
 * to collect garbage in.
 *
 * <p>Non-transactional, not deferred-write: every put appends its record to JE's log buffer, which
 * goes to the log file when full, and fsyncs happen only at JE's checkpoints (every 20 MB of log by
 * default), never per write, which matches BufferHash's default of buffering writes without a
 * write-ahead log. Deferred write would keep even the writes in the cache until eviction, doing
 * less than a user of an ordinary JE database gets, and is not what JE recommends for data larger
 * than the cache. 8-byte values are embedded in the tree's bottom nodes (JE 7+ embeds values of up
 * to 16 bytes), so a lookup of a cached node needs no log read for the value.
 *
 * <p>Not thread-safe (one reusable entry per operation).
 */
final class JeStore implements MutableStore {
  /**
   * JE's cache lives on the Java heap, which also needs room for garbage between collections: with
   * the whole budget as cache, or 60 % of it (JE's own default share of the heap), the heap
   * outgrew the memory cgroup at 16 MiB and the kernel killed the run; at 64 MiB with 60 % the
   * process's anonymous memory grew by 1.5 times the cache. At 32 MiB, half was killed once in two
   * runs, and 0.4 ran in 2 of its 6 runs: its anonymous memory grew by 36 MB in its first 40 s of
   * loading, and a fixed, pre-touched heap of 24 MiB left too little of the budget for the page
   * cache its log writes dirty (see docs/benchmarks/bufferhash/RESULTS.md). All measured.
   */
  static final double CACHE_SHARE = 0.4;

  private final Environment environment;
  private final Database database;
  private final DatabaseEntry keyEntry = new DatabaseEntry();
  private final DatabaseEntry valueEntry = new DatabaseEntry();

  JeStore(long ramBytes, Path dir) throws IOException {
    Files.createDirectories(dir);
    EnvironmentConfig config = new EnvironmentConfig()
        .setAllowCreate(true)
        .setTransactional(false)
        .setLocking(false); // one thread: JE's lock manager would only cost time
    config.setCacheSize((long) (ramBytes * CACHE_SHARE));
    try {
      environment = new Environment(dir.toFile(), config);
      database = environment.openDatabase(null, "records", new DatabaseConfig().setAllowCreate(true));
    } catch (DatabaseException e) {
      throw new IOException(e);
    }
  }

  @Override
  public void put(byte[] key, byte[] value) {
    keyEntry.setData(key);
    valueEntry.setData(value);
    database.put(null, keyEntry, valueEntry);
  }

  @Override
  public byte[] get(byte[] key) {
    keyEntry.setData(key);
    return database.get(null, keyEntry, valueEntry, LockMode.DEFAULT) == OperationStatus.SUCCESS
        ? valueEntry.getData() : null;
  }

  /** JE's estimate of its cache's contents (tree nodes, log buffers, lock and admin objects). */
  @Override
  public long ramBytesUsed() {
    return environment.getStats(new StatsConfig()).getCacheTotalBytes();
  }

  @Override
  public void close() {
    database.close();
    environment.close();
  }
}
