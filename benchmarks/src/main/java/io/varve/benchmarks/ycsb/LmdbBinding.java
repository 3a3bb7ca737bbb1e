package io.varve.benchmarks.ycsb;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.lmdbjava.CursorIterable;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.EnvInfo;
import org.lmdbjava.KeyRange;
import org.lmdbjava.Stat;
import org.lmdbjava.Txn;
import site.ycsb.DBException;

/**
 * YCSB binding of LMDB through lmdbjava ({@code -db io.varve.benchmarks.ycsb.LmdbBinding}): one
 * B+tree in a memory-mapped file. LMDB has no cache of its own: its RAM is the page cache of the
 * map, which the kernel manages, so {@value KeyValueDb#CACHE_BYTES_PROPERTY} is not used. The map
 * size ({@code lmdb.mapBytes}, default 1 TiB) is address space only; the file grows with the data.
 *
 * <p>As in the BufferHash comparison: {@code MDB_NOSYNC} (a commit writes its pages to the file
 * without an fsync, so a write reaches the operating system before it returns, as SILT's do) and
 * {@code MDB_NORDAHEAD} (YCSB reads at random). Each write is its own transaction (LMDB runs one at
 * a time); {@code MDB_NOTLS} lets each instance keep its read transaction, reset between reads,
 * whichever thread uses it next.
 *
 * <p>Scans are implemented (a cursor from the start key). The last instance to close prints the
 * map's used bytes as one {@value KeyValueDb#STATS_PREFIX} line to stderr.
 *
 * <p>Not thread-safe: an instance's read transaction and key and value buffers are its own (one
 * instance per YCSB client thread); the environment it shares is thread-safe.
 */
public final class LmdbBinding extends KeyValueDb {
  private static final SharedStore<OpenLmdb> SHARED = new SharedStore<>();
  private static final long DEFAULT_MAP_BYTES = 1L << 40;

  private Env<ByteBuffer> env;
  private Dbi<ByteBuffer> db;
  private ByteBuffer keyBuffer;
  private ByteBuffer valueBuffer = ByteBuffer.allocateDirect(4096);
  private Txn<ByteBuffer> read;

  @Override
  public void init() throws DBException {
    String dir = directory();
    long mapBytes = Long.parseLong(getProperties().getProperty("lmdb.mapBytes", Long.toString(DEFAULT_MAP_BYTES)));
    try {
      OpenLmdb open = SHARED.acquire(dir, () -> OpenLmdb.open(Path.of(dir), mapBytes));
      env = open.env;
      db = open.db;
    } catch (Exception e) {
      throw new DBException("opening LMDB in " + dir, e);
    }
    keyBuffer = ByteBuffer.allocateDirect(env.getMaxKeySize());
  }

  @Override
  public void cleanup() throws DBException {
    if (read != null) {
      read.close();
      read = null;
    }
    try {
      SHARED.release();
    } catch (Exception e) {
      throw new DBException("closing LMDB", e);
    }
  }

  @Override
  byte[] get(byte[] key) {
    if (read == null) {
      read = env.txnRead();
    } else {
      read.renew();
    }
    try {
      ByteBuffer found = db.get(read, fill(keyBuffer, key));
      return found == null ? null : copy(found);
    } finally {
      read.reset();
    }
  }

  @Override
  void put(byte[] key, byte[] value) {
    if (valueBuffer.capacity() < value.length) {
      valueBuffer = ByteBuffer.allocateDirect(Math.max(value.length, 2 * valueBuffer.capacity()));
    }
    try (Txn<ByteBuffer> write = env.txnWrite()) {
      db.put(write, fill(keyBuffer, key), fill(valueBuffer, value));
      write.commit();
    }
  }

  @Override
  void remove(byte[] key) {
    try (Txn<ByteBuffer> write = env.txnWrite()) {
      db.delete(write, fill(keyBuffer, key));
      write.commit();
    }
  }

  @Override
  boolean scan(byte[] start, int count, RecordVisitor visitor) {
    try (Txn<ByteBuffer> txn = env.txnRead();
        CursorIterable<ByteBuffer> records = db.iterate(txn, KeyRange.atLeast(fill(keyBuffer, start)))) {
      int visited = 0;
      for (CursorIterable.KeyVal<ByteBuffer> record : records) {
        if (visited++ == count) {
          break;
        }
        visitor.visit(copy(record.key()), copy(record.val()));
      }
    }
    return true;
  }

  private static ByteBuffer fill(ByteBuffer buffer, byte[] bytes) {
    buffer.clear();
    buffer.put(bytes).flip();
    return buffer;
  }

  private static byte[] copy(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }

  /** The environment and its one database. */
  private record OpenLmdb(Env<ByteBuffer> env, Dbi<ByteBuffer> db) implements AutoCloseable {
    static OpenLmdb open(Path dir, long mapBytes) throws Exception {
      Files.createDirectories(dir);
      Env<ByteBuffer> env = Env.create().setMapSize(mapBytes).setMaxDbs(1).setMaxReaders(1024)
          .open(dir.toFile(), EnvFlags.MDB_NOSYNC, EnvFlags.MDB_NORDAHEAD, EnvFlags.MDB_NOTLS);
      return new OpenLmdb(env, env.openDbi("usertable", DbiFlags.MDB_CREATE));
    }

    @Override
    public void close() {
      try {
        EnvInfo info = env.info();
        Stat stat = env.stat();
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("ramBytes", -1); // only the page cache of its map
        line.put("usedMapBytes", (info.lastPageNumber + 1) * (long) stat.pageSize);
        printStats("LMDB", line);
      } finally {
        db.close();
        env.close();
      }
    }
  }
}
