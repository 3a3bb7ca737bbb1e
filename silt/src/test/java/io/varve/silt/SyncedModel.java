package io.varve.silt;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a SILT store may answer after a crash, kept beside it in plain {@link HashMap}s (BufferHash's
 * {@code DurableModel} without evictions): the values as of the last returned {@code sync()}
 * (durable), and every value each key was given since (null: a delete). After a crash a key must
 * read back as its durable value or one of those; never a value it never had, never an older one
 * when a newer durable one exists, and a durable delete stays deleted. Not thread-safe.
 */
final class SyncedModel {
  private final Map<ByteBuffer, byte[]> durable = new HashMap<>();
  private final Map<ByteBuffer, List<byte[]>> since = new HashMap<>();
  private final Map<ByteBuffer, byte[]> current = new HashMap<>();

  /** A put ({@code value} non-null) or delete about to be made. */
  void write(byte[] key, byte[] value) {
    ByteBuffer k = ByteBuffer.wrap(key.clone());
    since.computeIfAbsent(k, x -> new ArrayList<>()).add(value);
    if (value == null) {
      current.remove(k);
    } else {
      current.put(k, value);
    }
  }

  /** Every write made so far is durable (a sync, or a close, returned). */
  void acknowledge() {
    for (ByteBuffer k : since.keySet()) {
      byte[] value = current.get(k);
      if (value == null) {
        durable.remove(k);
      } else {
        durable.put(k, value);
      }
    }
    since.clear();
  }

  /** Whether {@code actual} is an answer a crash allows for {@code key}: null if so, else what was allowed. */
  String check(byte[] key, byte[] actual) {
    ByteBuffer k = ByteBuffer.wrap(key);
    byte[] was = durable.get(k);
    if (Arrays.equals(was, actual)) {
      return null;
    }
    for (byte[] value : since.getOrDefault(k, List.of())) {
      if (Arrays.equals(value, actual)) {
        return null;
      }
    }
    return "durable " + describe(was) + ", " + since.getOrDefault(k, List.of()).size() + " writes since; read " + describe(actual);
  }

  private static String describe(byte[] value) {
    return value == null ? "null" : value.length + " bytes " + Arrays.hashCode(value);
  }
}
