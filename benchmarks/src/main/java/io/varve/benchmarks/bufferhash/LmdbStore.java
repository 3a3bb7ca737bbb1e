package io.varve.benchmarks.bufferhash;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.Txn;

/**
 * LMDB through lmdbjava: one B+tree in a memory-mapped file. LMDB holds no cache of its own, so its
 * RAM is the page cache alone, and the memory cgroup the harness runs it in is what bounds it; the
 * RAM budget given here is unused.
 *
 * <p>{@code MDB_NOSYNC}: commits write their pages to the file without an fsync, as BufferHash
 * writes without one. {@code MDB_NORDAHEAD}: the map is read at random, and read-ahead would fill
 * the bounded page cache with neighbouring pages nobody asked for. Puts are grouped into write
 * transactions of {@value #PUTS_PER_COMMIT}: a commit copies every page the transaction touched (a
 * leaf and its path to the root) into the file, so a commit per put would write several 4 KiB pages
 * per 28-byte record; batching is what a user loading data does, and it keeps unwritten no more
 * than BufferHash's buffers do. A pending batch is committed before the next lookup.
 *
 * <p>Not thread-safe: one transaction, one key and one value buffer, reused.
 */
final class LmdbStore implements MutableStore {
  static final int PUTS_PER_COMMIT = 1024;
  /** Address space only: the file grows with the data, never to this size. */
  private static final long MAP_BYTES = 256L << 30;

  private final Env<ByteBuffer> env;
  private final Dbi<ByteBuffer> db;
  private final ByteBuffer keyBuffer;
  private final ByteBuffer valueBuffer = ByteBuffer.allocateDirect(1 << 16);
  private Txn<ByteBuffer> write;
  private int pendingPuts;
  private Txn<ByteBuffer> read;

  LmdbStore(Path dir) throws IOException {
    Files.createDirectories(dir);
    // MDB_NOTLS: the read transaction is kept (reset between lookups) on this one thread alongside
    // write transactions, which LMDB allows only without thread-local reader slots.
    env = Env.create().setMapSize(MAP_BYTES).setMaxDbs(1)
        .open(dir.toFile(), EnvFlags.MDB_NOSYNC, EnvFlags.MDB_NORDAHEAD, EnvFlags.MDB_NOTLS);
    db = env.openDbi("records", DbiFlags.MDB_CREATE);
    keyBuffer = ByteBuffer.allocateDirect(env.getMaxKeySize());
  }

  @Override
  public void put(byte[] key, byte[] value) {
    if (read != null) {
      read.close();
      read = null;
    }
    if (write == null) {
      write = env.txnWrite();
    }
    db.put(write, fill(keyBuffer, key), fill(valueBuffer, value));
    if (++pendingPuts == PUTS_PER_COMMIT) {
      commit();
    }
  }

  @Override
  public byte[] get(byte[] key) {
    commit();
    if (read == null) {
      read = env.txnRead();
    } else {
      read.renew();
    }
    try {
      ByteBuffer found = db.get(read, fill(keyBuffer, key));
      if (found == null) {
        return null;
      }
      byte[] value = new byte[found.remaining()];
      found.get(value);
      return value;
    } finally {
      read.reset();
    }
  }

  private static ByteBuffer fill(ByteBuffer buffer, byte[] bytes) {
    buffer.clear();
    buffer.put(bytes).flip();
    return buffer;
  }

  private void commit() {
    if (write != null) {
      write.commit();
      write.close();
      write = null;
      pendingPuts = 0;
    }
  }

  /** -1: LMDB's only memory is the page cache of its map, which the harness measures. */
  @Override
  public long ramBytesUsed() {
    return -1;
  }

  @Override
  public void close() {
    commit();
    if (read != null) {
      read.close();
    }
    db.close();
    env.close();
  }
}
