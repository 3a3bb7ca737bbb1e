package io.varve.benchmarks.ycsb;

import com.sleepycat.je.Cursor;
import com.sleepycat.je.CursorConfig;
import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.LockMode;
import com.sleepycat.je.OperationStatus;
import com.sleepycat.je.StatsConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import site.ycsb.DBException;

/**
 * YCSB binding of Berkeley DB Java Edition ({@code -db io.varve.benchmarks.ycsb.JeBinding}): one
 * B+tree database in an environment whose cache (on the Java heap, inside {@code -Xmx}) is
 * {@value KeyValueDb#CACHE_BYTES_PROPERTY} bytes.
 *
 * <p>Transactional with auto-commit and {@link Durability#COMMIT_WRITE_NO_SYNC}: each write is
 * written to the log file (the operating system) when it commits, without an fsync, as SILT's
 * writes are. A non-transactional environment, as in the BufferHash comparison, would keep writes
 * in JE's log buffer until it fills, and its locking is off there because one thread drives it;
 * YCSB's clients are several threads.
 *
 * <p>Scans are implemented (a cursor from the start key). The last instance to close prints JE's
 * cache bytes as one {@value KeyValueDb#STATS_PREFIX} line to stderr.
 *
 * <p>Not thread-safe (one instance per YCSB client thread); the environment and database it
 * shares are.
 */
public final class JeBinding extends KeyValueDb {
  private static final SharedStore<OpenJe> SHARED = new SharedStore<>();

  private Database db;

  @Override
  public void init() throws DBException {
    String dir = directory();
    long cacheBytes = cacheBytes();
    try {
      db = SHARED.acquire(dir, () -> OpenJe.open(Path.of(dir), cacheBytes)).db;
    } catch (Exception e) {
      throw new DBException("opening JE in " + dir, e);
    }
  }

  @Override
  public void cleanup() throws DBException {
    try {
      SHARED.release();
    } catch (Exception e) {
      throw new DBException("closing JE", e);
    }
  }

  @Override
  byte[] get(byte[] key) {
    DatabaseEntry value = new DatabaseEntry();
    return db.get(null, new DatabaseEntry(key), value, LockMode.DEFAULT) == OperationStatus.SUCCESS
        ? value.getData() : null;
  }

  @Override
  void put(byte[] key, byte[] value) {
    db.put(null, new DatabaseEntry(key), new DatabaseEntry(value));
  }

  @Override
  void remove(byte[] key) {
    db.delete(null, new DatabaseEntry(key));
  }

  @Override
  boolean scan(byte[] start, int count, RecordVisitor visitor) {
    DatabaseEntry key = new DatabaseEntry(start);
    DatabaseEntry value = new DatabaseEntry();
    try (Cursor cursor = db.openCursor(null, CursorConfig.READ_COMMITTED)) {
      OperationStatus status = cursor.getSearchKeyRange(key, value, LockMode.DEFAULT);
      for (int i = 0; i < count && status == OperationStatus.SUCCESS; i++) {
        visitor.visit(key.getData(), value.getData());
        status = cursor.getNext(key, value, LockMode.DEFAULT);
      }
    }
    return true;
  }

  /** The environment and its one database. */
  private record OpenJe(Environment environment, Database db) implements AutoCloseable {
    static OpenJe open(Path dir, long cacheBytes) throws Exception {
      Files.createDirectories(dir);
      EnvironmentConfig config = new EnvironmentConfig().setAllowCreate(true).setTransactional(true);
      config.setDurability(Durability.COMMIT_WRITE_NO_SYNC);
      config.setCacheSize(cacheBytes);
      Environment environment = new Environment(dir.toFile(), config);
      try {
        Database db = environment.openDatabase(null, "usertable",
            new DatabaseConfig().setAllowCreate(true).setTransactional(true));
        return new OpenJe(environment, db);
      } catch (RuntimeException e) {
        environment.close();
        throw e;
      }
    }

    @Override
    public void close() {
      try {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("ramBytes", environment.getStats(new StatsConfig()).getCacheTotalBytes());
        line.put("cacheBudgetBytes", environment.getConfig().getCacheSize());
        printStats("JE", line);
      } finally {
        db.close();
        environment.close();
      }
    }
  }
}
