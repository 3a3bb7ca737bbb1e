package io.varve.core.serial;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The built-in {@link Serializer}s, and {@link #byName} to find one again from the name a store
 * recorded in its metadata.
 *
 * <table>
 *   <caption>Built-in serializers</caption>
 *   <tr><th>Factory</th><th>{@code name()}</th><th>{@code fixedLength()}</th><th>Format</th></tr>
 *   <tr><td>{@link #bytes()}</td><td>{@code bytes}</td><td>-1</td><td>the bytes themselves</td></tr>
 *   <tr><td>{@link #utf8()}</td><td>{@code utf8-string}</td><td>-1</td><td>strict UTF-8</td></tr>
 *   <tr><td>{@link #int32()}</td><td>{@code int32-be}</td><td>4</td><td>big-endian two's complement</td></tr>
 *   <tr><td>{@link #int64()}</td><td>{@code int64-be}</td><td>8</td><td>big-endian two's complement</td></tr>
 *   <tr><td>{@link #fixedBytes(int) fixedBytes(w)}</td><td>{@code fixed-bytes:w}</td><td>w</td>
 *       <td>exactly {@code w} bytes</td></tr>
 * </table>
 *
 * <p>Usage:
 *
 * <pre>{@code
 * Serializer<String> keys = Serializers.utf8();
 * Serializer<Long> values = Serializers.int64();
 *
 * byte[] key = keys.toBytes("user:42");            // the bytes a store hashes for lookups
 * byte[] value = values.toBytes(1_700_000_000L);  // 8 bytes, so no offsets file is needed
 * long back = values.fromBytes(value);
 *
 * // A store records keys.name() ("utf8-string") and finds the serializer again when opened:
 * Serializer<?> recorded = Serializers.byName(keys.name());
 * }</pre>
 *
 * <p>Every serializer returned here is immutable and thread-safe, and its {@code fromBytes} allocates
 * nothing beyond the value it returns (boxed integers included, outside the JDK's small-value cache).
 * Every one rejects a {@code null} value with a {@link NullPointerException} naming the serializer.
 *
 * <p>This class has no state and cannot be instantiated.
 */
public final class Serializers {
  private static final String BYTES_NAME = "bytes";
  private static final String UTF8_NAME = "utf8-string";
  private static final String INT32_NAME = "int32-be";
  private static final String INT64_NAME = "int64-be";
  private static final String FIXED_BYTES_PREFIX = "fixed-bytes:";

  private static final Serializer<byte[]> BYTES = new Bytes();
  private static final Serializer<String> UTF8 = new Utf8();
  private static final Serializer<Integer> INT32 = new Int32();
  private static final Serializer<Long> INT64 = new Int64();

  private Serializers() {}

  /**
   * Byte arrays as themselves ({@code "bytes"}, variable length). Both directions copy: {@code
   * toBytes} returns a copy so that a caller who later reuses or mutates its array cannot change a
   * key the store has already taken; {@code fromBytes} returns a copy of the slice because the
   * store may reuse the buffer it read from. Any array is accepted, including an empty one.
   */
  public static Serializer<byte[]> bytes() {
    return BYTES;
  }

  /**
   * Strings as strict UTF-8 ({@code "utf8-string"}, variable length, no length prefix or
   * terminator). Strict in both directions, because a silently replaced character would make two
   * different strings share one key, or return a value that differs from the one stored:
   *
   * <ul>
   *   <li>{@code toBytes} throws {@link SerializationException} for a string holding an unpaired
   *       surrogate, instead of writing {@code '?'} as {@link String#getBytes} would;
   *   <li>{@code fromBytes} throws {@link SerializationException} for any byte sequence that is not
   *       well-formed UTF-8 (Unicode Table 3-7: no overlong forms, no encoded surrogates, nothing
   *       above U+10FFFF, no truncated sequences), naming the offset and what was expected.
   * </ul>
   */
  public static Serializer<String> utf8() {
    return UTF8;
  }

  /**
   * Integers as 4 big-endian two's-complement bytes ({@code "int32-be"}, {@code fixedLength() ==
   * 4}). Big-endian so that, for non-negative values, the unsigned lexicographic order of the bytes
   * (as in {@link Arrays#compareUnsigned(byte[], byte[])}) is the numeric order. Negative values have
   * the top bit set and sort after every non-negative value (in numeric order among themselves).
   * {@code fromBytes} rejects any slice whose length is not 4.
   */
  public static Serializer<Integer> int32() {
    return INT32;
  }

  /**
   * Longs as 8 big-endian two's-complement bytes ({@code "int64-be"}, {@code fixedLength() == 8}).
   * As for {@link #int32()}, byte order equals numeric order for non-negative values and negative
   * values sort after them. {@code fromBytes} rejects any slice whose length is not 8.
   */
  public static Serializer<Long> int64() {
    return INT64;
  }

  /**
   * Byte arrays of exactly {@code width} bytes ({@code "fixed-bytes:<width>"}, {@code fixedLength()
   * == width}), such as hashes or UUIDs, stored without an offsets file. Both directions reject
   * arrays of any other length with a {@link SerializationException}, and both copy, as {@link
   * #bytes()} does.
   *
   * @throws IllegalArgumentException if {@code width} is negative
   */
  public static Serializer<byte[]> fixedBytes(int width) {
    if (width < 0) {
      throw new IllegalArgumentException("fixed-bytes width must be non-negative, got " + width);
    }
    return new FixedBytes(width);
  }

  /**
   * The built-in serializer whose {@link Serializer#name()} is {@code name}, so that {@code
   * byName(s.name())} finds a serializer with the same format as {@code s}. Only canonical names
   * are accepted: {@code "fixed-bytes:16"} but not {@code "fixed-bytes:016"} or {@code
   * "fixed-bytes:+16"}, so that one format is never recorded under two names.
   *
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is not the name of a built-in serializer
   */
  public static Serializer<?> byName(String name) {
    Objects.requireNonNull(name, "name");
    switch (name) {
      case BYTES_NAME:
        return BYTES;
      case UTF8_NAME:
        return UTF8;
      case INT32_NAME:
        return INT32;
      case INT64_NAME:
        return INT64;
      default:
        break;
    }
    if (name.startsWith(FIXED_BYTES_PREFIX)) {
      int width = parseCanonicalWidth(name.substring(FIXED_BYTES_PREFIX.length()));
      if (width >= 0) {
        return new FixedBytes(width);
      }
    }
    throw new IllegalArgumentException(
        "unknown serializer name \""
            + name
            + "\": expected one of \"bytes\", \"utf8-string\", \"int32-be\", \"int64-be\" or"
            + " \"fixed-bytes:<width>\" with <width> a non-negative decimal int without leading"
            + " zeros");
  }

  /** The width written as canonical decimal (ASCII digits, no sign, no leading zero), else -1. */
  private static int parseCanonicalWidth(String digits) {
    if (digits.isEmpty() || (digits.length() > 1 && digits.charAt(0) == '0')) {
      return -1;
    }
    for (int i = 0; i < digits.length(); i++) {
      char c = digits.charAt(i);
      // Not Character.isDigit: it accepts digits of other scripts, giving a second spelling.
      if (c < '0' || c > '9') {
        return -1;
      }
    }
    try {
      return Integer.parseInt(digits);
    } catch (NumberFormatException tooLarge) {
      return -1;
    }
  }

  /** Message for a null value; built once per serializer so rejecting null allocates nothing. */
  private static String nullMessage(String name) {
    return name + ": cannot serialize null (null is never a value)";
  }

  private static SerializationException wrongLength(String name, int expected, int actual) {
    return new SerializationException(
        name + ": expected exactly " + expected + " bytes but got " + actual);
  }

  private static final class Bytes implements Serializer<byte[]> {
    private static final String NULL_MESSAGE = nullMessage(BYTES_NAME);

    @Override
    public byte[] toBytes(byte[] value) {
      Objects.requireNonNull(value, NULL_MESSAGE);
      return value.clone();
    }

    @Override
    public byte[] fromBytes(byte[] bytes, int offset, int length) {
      Objects.checkFromIndexSize(offset, length, bytes.length);
      return Arrays.copyOfRange(bytes, offset, offset + length);
    }

    @Override
    public String name() {
      return BYTES_NAME;
    }

    @Override
    public String toString() {
      return BYTES_NAME;
    }
  }

  private static final class FixedBytes implements Serializer<byte[]> {
    private final int width;
    private final String name;
    private final String nullMessage;

    FixedBytes(int width) {
      this.width = width;
      this.name = FIXED_BYTES_PREFIX + width;
      this.nullMessage = nullMessage(name);
    }

    @Override
    public byte[] toBytes(byte[] value) {
      Objects.requireNonNull(value, nullMessage);
      if (value.length != width) {
        throw wrongLength(name, width, value.length);
      }
      return value.clone();
    }

    @Override
    public byte[] fromBytes(byte[] bytes, int offset, int length) {
      Objects.checkFromIndexSize(offset, length, bytes.length);
      if (length != width) {
        throw wrongLength(name, width, length);
      }
      return Arrays.copyOfRange(bytes, offset, offset + length);
    }

    @Override
    public int fixedLength() {
      return width;
    }

    @Override
    public String name() {
      return name;
    }

    // byName creates a new instance each time; equality by width keeps two of them interchangeable.
    @Override
    public boolean equals(Object other) {
      return other instanceof FixedBytes && ((FixedBytes) other).width == width;
    }

    @Override
    public int hashCode() {
      return Integer.hashCode(width);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private static final class Int32 implements Serializer<Integer> {
    private static final VarHandle INT_BE =
        MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final String NULL_MESSAGE = nullMessage(INT32_NAME);

    @Override
    public byte[] toBytes(Integer value) {
      int v = Objects.requireNonNull(value, NULL_MESSAGE);
      byte[] bytes = new byte[Integer.BYTES];
      INT_BE.set(bytes, 0, v);
      return bytes;
    }

    @Override
    public Integer fromBytes(byte[] bytes, int offset, int length) {
      Objects.checkFromIndexSize(offset, length, bytes.length);
      if (length != Integer.BYTES) {
        throw wrongLength(INT32_NAME, Integer.BYTES, length);
      }
      return (int) INT_BE.get(bytes, offset);
    }

    @Override
    public int fixedLength() {
      return Integer.BYTES;
    }

    @Override
    public String name() {
      return INT32_NAME;
    }

    @Override
    public String toString() {
      return INT32_NAME;
    }
  }

  private static final class Int64 implements Serializer<Long> {
    private static final VarHandle LONG_BE =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final String NULL_MESSAGE = nullMessage(INT64_NAME);

    @Override
    public byte[] toBytes(Long value) {
      long v = Objects.requireNonNull(value, NULL_MESSAGE);
      byte[] bytes = new byte[Long.BYTES];
      LONG_BE.set(bytes, 0, v);
      return bytes;
    }

    @Override
    public Long fromBytes(byte[] bytes, int offset, int length) {
      Objects.checkFromIndexSize(offset, length, bytes.length);
      if (length != Long.BYTES) {
        throw wrongLength(INT64_NAME, Long.BYTES, length);
      }
      return (long) LONG_BE.get(bytes, offset);
    }

    @Override
    public int fixedLength() {
      return Long.BYTES;
    }

    @Override
    public String name() {
      return INT64_NAME;
    }

    @Override
    public String toString() {
      return INT64_NAME;
    }
  }

  /**
   * Validates by hand, then lets the JDK encode or decode. For well-formed input the JDK's UTF-8
   * coders are exact and fast (intrinsified, with ASCII fast paths); the hand-written pass only
   * adds the strictness they lack in {@code String}'s constructor and {@code getBytes}, and needs no
   * per-call {@code CharsetDecoder}, which would be either allocated or thread-confined.
   */
  private static final class Utf8 implements Serializer<String> {
    private static final String NULL_MESSAGE = nullMessage(UTF8_NAME);

    @Override
    public byte[] toBytes(String value) {
      Objects.requireNonNull(value, NULL_MESSAGE);
      checkNoUnpairedSurrogate(value);
      return value.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String fromBytes(byte[] bytes, int offset, int length) {
      Objects.checkFromIndexSize(offset, length, bytes.length);
      checkWellFormed(bytes, offset, length);
      return new String(bytes, offset, length, StandardCharsets.UTF_8);
    }

    @Override
    public String name() {
      return UTF8_NAME;
    }

    @Override
    public String toString() {
      return UTF8_NAME;
    }

    private static void checkNoUnpairedSurrogate(String value) {
      int n = value.length();
      for (int i = 0; i < n; i++) {
        char c = value.charAt(i);
        if (!Character.isSurrogate(c)) {
          continue;
        }
        if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(value.charAt(i + 1))) {
          i++;
          continue;
        }
        String found =
            Character.isHighSurrogate(c)
                ? (i + 1 < n
                    ? "high surrogate U+%04X at char %d followed by U+%04X"
                        .formatted((int) c, i, (int) value.charAt(i + 1))
                    : "high surrogate U+%04X at char %d at the end of the string"
                        .formatted((int) c, i))
                : "low surrogate U+%04X at char %d without a high surrogate before it"
                    .formatted((int) c, i);
        throw new SerializationException(
            UTF8_NAME
                + ": cannot encode a string of length "
                + n
                + " as UTF-8: expected every high surrogate to be followed by a low surrogate, but found "
                + found);
      }
    }

    /** Checks {@code bytes[offset, offset + length)} against Unicode Table 3-7. */
    private static void checkWellFormed(byte[] bytes, int offset, int length) {
      int end = offset + length;
      int i = offset;
      while (i < end) {
        int lead = bytes[i] & 0xFF;
        if (lead < 0x80) {
          i++;
          continue;
        }
        int size;
        // The second byte's range is narrower after four leads: that is what rules out overlong
        // forms (E0, F0), encoded surrogates (ED) and code points above U+10FFFF (F4).
        int secondMin = 0x80;
        int secondMax = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
          size = 2;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
          size = 3;
          if (lead == 0xE0) {
            secondMin = 0xA0;
          } else if (lead == 0xED) {
            secondMax = 0x9F;
          }
        } else if (lead >= 0xF0 && lead <= 0xF4) {
          size = 4;
          if (lead == 0xF0) {
            secondMin = 0x90;
          } else if (lead == 0xF4) {
            secondMax = 0x8F;
          }
        } else {
          throw malformed(
              offset, length, i, "a lead byte in 0x00-0x7F or 0xC2-0xF4", "0x" + hex(lead));
        }
        if (end - i < size) {
          throw malformed(
              offset,
              length,
              i,
              size + " bytes for the sequence starting with 0x" + hex(lead),
              "only " + (end - i) + " before the end of the value");
        }
        for (int k = 1; k < size; k++) {
          int b = bytes[i + k] & 0xFF;
          int min = k == 1 ? secondMin : 0x80;
          int max = k == 1 ? secondMax : 0xBF;
          if (b < min || b > max) {
            throw malformed(
                offset,
                length,
                i + k,
                "byte "
                    + (k + 1)
                    + " of the sequence starting with 0x"
                    + hex(lead)
                    + " to be in 0x"
                    + hex(min)
                    + "-0x"
                    + hex(max),
                "0x" + hex(b));
          }
        }
        i += size;
      }
    }

    private static SerializationException malformed(
        int offset, int length, int position, String expected, String found) {
      return new SerializationException(
          UTF8_NAME
              + ": malformed UTF-8 at byte "
              + (position - offset)
              + " of a "
              + length
              + "-byte value: expected "
              + expected
              + " but found "
              + found);
    }

    private static String hex(int b) {
      return String.format("%02X", b);
    }
  }
}
