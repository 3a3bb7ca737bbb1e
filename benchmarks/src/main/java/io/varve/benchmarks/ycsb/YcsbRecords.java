package io.varve.benchmarks.ycsb;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;

/**
 * The one value every binding stores for a YCSB record: its fields, each as a varint length and
 * the UTF-8 name, then a varint length and the value's bytes, one after the other. A record of
 * YCSB's default shape (ten fields of 100 bytes named {@code field0..field9}) takes 1,080 bytes:
 * its 1,060 bytes of names and values and one byte of length before each. The key is the store's
 * key, not repeated here. Field order carries no meaning. Stateless; thread-safe.
 */
public final class YcsbRecords {
  private YcsbRecords() {}

  /** {@code fields} as one record; reads (consumes) each value's iterator. */
  public static byte[] encode(Map<String, ByteIterator> fields) {
    Writer out = new Writer(fields.size() * 112);
    for (Map.Entry<String, ByteIterator> field : fields.entrySet()) {
      out.field(field.getKey().getBytes(StandardCharsets.UTF_8), field.getValue().toArray());
    }
    return out.toArray();
  }

  /**
   * Puts the fields of {@code record} named in {@code wanted} (all when null) into {@code result},
   * as iterators over the record's own bytes (no copy).
   */
  public static void decode(byte[] record, Set<String> wanted, Map<String, ByteIterator> result) {
    Reader in = new Reader(record);
    while (in.more()) {
      String name = in.name();
      int length = in.varint();
      if (wanted == null || wanted.contains(name)) {
        result.put(name, new ByteArrayByteIterator(record, in.at, length));
      }
      in.at += length;
    }
  }

  /**
   * {@code record} with the fields of {@code updates} written over it: a field named there takes
   * the new value, one not named there keeps its own, a new one is added (YCSB's update). Reads
   * (consumes) the updates' iterators.
   */
  public static byte[] merge(byte[] record, Map<String, ByteIterator> updates) {
    Writer out = new Writer(record.length + updates.size() * 112);
    Reader in = new Reader(record);
    while (in.more()) {
      int start = in.at;
      String name = in.name();
      int length = in.varint();
      in.at += length;
      if (!updates.containsKey(name)) {
        out.raw(record, start, in.at - start); // kept as it is, without decoding the value
      }
    }
    for (Map.Entry<String, ByteIterator> field : updates.entrySet()) {
      out.field(field.getKey().getBytes(StandardCharsets.UTF_8), field.getValue().toArray());
    }
    return out.toArray();
  }

  /** Appends fields to a growing array. */
  private static final class Writer {
    private byte[] bytes;
    private int size;

    Writer(int capacity) {
      bytes = new byte[Math.max(16, capacity)];
    }

    void field(byte[] name, byte[] value) {
      varint(name.length);
      raw(name, 0, name.length);
      varint(value.length);
      raw(value, 0, value.length);
    }

    void varint(int value) {
      ensure(5);
      while ((value & ~0x7F) != 0) {
        bytes[size++] = (byte) ((value & 0x7F) | 0x80);
        value >>>= 7;
      }
      bytes[size++] = (byte) value;
    }

    void raw(byte[] source, int offset, int length) {
      ensure(length);
      System.arraycopy(source, offset, bytes, size, length);
      size += length;
    }

    private void ensure(int more) {
      if (size + more > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
      }
    }

    byte[] toArray() {
      return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
    }
  }

  /** Walks a record's fields; throws on a record cut short rather than returning garbage. */
  private static final class Reader {
    private final byte[] bytes;
    int at;

    Reader(byte[] bytes) {
      this.bytes = bytes;
    }

    boolean more() {
      return at < bytes.length;
    }

    String name() {
      int length = varint();
      check(length);
      String name = new String(bytes, at, length, StandardCharsets.UTF_8);
      at += length;
      return name;
    }

    int varint() {
      int value = 0;
      for (int shift = 0; shift < 32; shift += 7) {
        check(1);
        byte b = bytes[at++];
        value |= (b & 0x7F) << shift;
        if (b >= 0) {
          check(value);
          return value;
        }
      }
      throw new IllegalArgumentException("a YCSB record with a bad length at byte " + at);
    }

    private void check(int length) {
      if (length < 0 || length > bytes.length - at) {
        throw new IllegalArgumentException("a YCSB record cut short at byte " + at + " of " + bytes.length);
      }
    }
  }
}
