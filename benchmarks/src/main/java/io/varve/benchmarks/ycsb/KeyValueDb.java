package io.varve.benchmarks.ycsb;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * What the four bindings share: YCSB's record operations on top of a byte-string store's get, put
 * and delete, with each record one value ({@link YcsbRecords}). A binding names its store's three
 * operations, and a scan if the store keeps keys in order.
 *
 * <p>Keys are the UTF-8 bytes of YCSB's key; the table name is not part of them (CoreWorkload uses
 * one table). An update reads the record, merges the fields and writes it back under one of
 * {@value #LOCK_STRIPES} locks chosen by the key, shared by every instance in the JVM, and so do
 * inserts and deletes: two threads updating different fields of one record would otherwise lose
 * one of the updates.
 *
 * <p>Properties: {@value #DIRECTORY_PROPERTY} (required) is the store's directory, {@value
 * #CACHE_BYTES_PROPERTY} the RAM budget each binding gives its system's cache (default {@value
 * #DEFAULT_CACHE_BYTES} bytes); each binding says what it does with it.
 *
 * <p>Not thread-safe: YCSB gives each client thread an instance of its own; the store behind
 * them is shared ({@link SharedStore}).
 */
abstract class KeyValueDb extends DB {
  static final String DIRECTORY_PROPERTY = "varve.dir";
  static final String CACHE_BYTES_PROPERTY = "varve.cacheBytes";
  static final long DEFAULT_CACHE_BYTES = 256L << 20;
  /** The prefix of the lines each binding prints to stderr when it closes its store. */
  static final String STATS_PREFIX = "VARVE-YCSB-STORE";
  private static final int LOCK_STRIPES = 256;
  private static final ReentrantLock[] LOCKS = new ReentrantLock[LOCK_STRIPES];
  /** Failures printed with their stack trace; later ones only count in YCSB's Return= lines. */
  private static final AtomicInteger PRINTED_FAILURES = new AtomicInteger();

  static {
    for (int i = 0; i < LOCK_STRIPES; i++) {
      LOCKS[i] = new ReentrantLock();
    }
  }

  /** The value of {@code key}, or null when absent. */
  abstract byte[] get(byte[] key) throws Exception;

  /** Inserts or replaces {@code key}'s value. */
  abstract void put(byte[] key, byte[] value) throws Exception;

  /** Deletes {@code key}; nothing happens when it is absent. */
  abstract void remove(byte[] key) throws Exception;

  /**
   * Gives {@code visitor} up to {@code count} records in key order from the first key at or after
   * {@code start}; false when the store keeps no key order (the scan is then not implemented).
   */
  boolean scan(byte[] start, int count, RecordVisitor visitor) throws Exception {
    return false;
  }

  /** Receives the records of a scan. */
  interface RecordVisitor {
    void visit(byte[] key, byte[] value);
  }

  final String directory() throws DBException {
    String dir = getProperties().getProperty(DIRECTORY_PROPERTY);
    if (dir == null) {
      throw new DBException("set " + DIRECTORY_PROPERTY + " to the store's directory");
    }
    return dir;
  }

  final long cacheBytes() {
    return Long.parseLong(getProperties().getProperty(CACHE_BYTES_PROPERTY, Long.toString(DEFAULT_CACHE_BYTES)));
  }

  /** Prints {@code STATS_PREFIX system=... key=value ...} to stderr, for the comparison's runner. */
  static void printStats(String system, Map<String, ?> stats) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("system", system);
    line.putAll(stats);
    printStats(line);
  }

  /** Prints {@code STATS_PREFIX key=value ...} to stderr; the runner merges a phase's lines. */
  static void printStats(Map<String, ?> stats) {
    StringBuilder line = new StringBuilder(STATS_PREFIX);
    stats.forEach((k, v) -> line.append(' ').append(k).append('=')
        .append(v instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : v));
    System.err.println(line);
  }

  @Override
  public final Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      byte[] record = get(bytes(key));
      if (record == null) {
        return Status.NOT_FOUND;
      }
      YcsbRecords.decode(record, fields, result);
      return Status.OK;
    } catch (Exception e) {
      return failed("read", key, e);
    }
  }

  @Override
  public final Status scan(String table, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    try {
      boolean ordered = scan(bytes(startkey), recordcount, (key, value) -> {
        HashMap<String, ByteIterator> record = new HashMap<>();
        YcsbRecords.decode(value, fields, record);
        result.add(record);
      });
      return ordered ? Status.OK : Status.NOT_IMPLEMENTED;
    } catch (Exception e) {
      return failed("scan", startkey, e);
    }
  }

  @Override
  public final Status update(String table, String key, Map<String, ByteIterator> values) {
    byte[] k = bytes(key);
    ReentrantLock lock = lock(k);
    lock.lock();
    try {
      byte[] record = get(k);
      if (record == null) {
        return Status.NOT_FOUND;
      }
      put(k, YcsbRecords.merge(record, values));
      return Status.OK;
    } catch (Exception e) {
      return failed("update", key, e);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public final Status insert(String table, String key, Map<String, ByteIterator> values) {
    byte[] k = bytes(key);
    byte[] record = YcsbRecords.encode(values);
    ReentrantLock lock = lock(k);
    lock.lock();
    try {
      put(k, record);
      return Status.OK;
    } catch (Exception e) {
      return failed("insert", key, e);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public final Status delete(String table, String key) {
    byte[] k = bytes(key);
    ReentrantLock lock = lock(k);
    lock.lock();
    try {
      remove(k);
      return Status.OK;
    } catch (Exception e) {
      return failed("delete", key, e);
    } finally {
      lock.unlock();
    }
  }

  private static byte[] bytes(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  private static ReentrantLock lock(byte[] key) {
    int h = Arrays.hashCode(key);
    return LOCKS[(h ^ (h >>> 16)) & (LOCK_STRIPES - 1)];
  }

  private Status failed(String operation, String key, Exception e) {
    if (PRINTED_FAILURES.getAndIncrement() < 10) {
      System.err.println(getClass().getSimpleName() + ": " + operation + " of " + key + " failed");
      e.printStackTrace();
    }
    return Status.ERROR;
  }
}
