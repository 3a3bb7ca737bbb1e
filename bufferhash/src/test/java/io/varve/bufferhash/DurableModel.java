package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a BufferHash may answer after a crash, kept beside it in plain {@link HashMap}s: the values
 * as of the last acknowledged sync (durable), and every value each key was given since (null: a
 * delete), or lost to an eviction the {@link EvictionListener} reported. After a crash a key must
 * read back as its durable value or one of those (or nothing, if it was evicted or written since);
 * never a value it never had, and never an older one when a newer durable one exists. Not
 * thread-safe.
 */
final class DurableModel {
  private final Map<ByteBuffer, byte[]> durable = new HashMap<>();
  private final Map<ByteBuffer, List<byte[]>> since = new HashMap<>();
  private final Set<ByteBuffer> evictedSince = new HashSet<>();
  private final Map<ByteBuffer, byte[]> current = new HashMap<>();

  /** A put ({@code value} non-null) or delete about to be made. */
  void write(byte[] key, byte[] value) {
    ByteBuffer k = ByteBuffer.wrap(key);
    since.computeIfAbsent(k, x -> new ArrayList<>()).add(value);
    if (value == null) {
      current.remove(k);
    } else {
      current.put(k, value);
    }
  }

  /** The listener's report: eviction dropped {@code key}'s current value. */
  void evicted(byte[] key, byte[] value) {
    ByteBuffer k = ByteBuffer.wrap(key);
    byte[] was = current.remove(k);
    assertTrue(Arrays.equals(was, value), "eviction reported a value that is not the current one");
    evictedSince.add(k);
  }

  /** Every write made so far is durable (a sync returned). */
  void acknowledge() {
    for (ByteBuffer k : since.keySet()) {
      settle(k);
    }
    for (ByteBuffer k : evictedSince) {
      settle(k);
    }
    since.clear();
    evictedSince.clear();
  }

  private void settle(ByteBuffer k) {
    byte[] value = current.get(k);
    if (value == null) {
      durable.remove(k);
    } else {
      durable.put(k, value);
    }
  }

  /** Takes what a reopened table answers as the state from now on (it is all on the device). */
  void reset(Map<ByteBuffer, byte[]> recovered) {
    durable.clear();
    durable.putAll(recovered);
    current.clear();
    current.putAll(recovered);
    since.clear();
    evictedSince.clear();
  }

  /** An independent copy, to check a second crash image of the same moment against. */
  DurableModel copy() {
    DurableModel copy = new DurableModel();
    copy.durable.putAll(durable);
    since.forEach((k, values) -> copy.since.put(k, new ArrayList<>(values)));
    copy.evictedSince.addAll(evictedSince);
    copy.current.putAll(current);
    return copy;
  }

  /** Whether {@code actual} is an answer a crash allows for {@code key}; else a description of what was allowed. */
  String check(byte[] key, byte[] actual) {
    ByteBuffer k = ByteBuffer.wrap(key);
    byte[] was = durable.get(k);
    if (Arrays.equals(was, actual)) {
      return null;
    }
    if (actual == null && (evictedSince.contains(k) || since.containsKey(k))) {
      // Evicted with its value reported; or written since, when the durable version may have
      // been evicted unreported (a newer one, only buffered, shadowed it) and the newer one lost.
      return null;
    }
    for (byte[] value : since.getOrDefault(k, List.of())) {
      if (Arrays.equals(value, actual)) {
        return null;
      }
    }
    return "durable " + describe(was) + ", " + since.getOrDefault(k, List.of()).size() + " writes since"
        + (evictedSince.contains(k) ? ", evicted since" : "") + "; read " + describe(actual);
  }

  private static String describe(byte[] value) {
    return value == null ? "null" : value.length + " bytes " + Arrays.hashCode(value);
  }
}
