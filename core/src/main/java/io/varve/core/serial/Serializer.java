package io.varve.core.serial;

import java.util.Objects;

/**
 * Converts values of type {@code T} to and from the byte strings that a Varve store holds as keys
 * and values. A typed view of a store uses one serializer for keys (turning a lookup key into the
 * bytes the index hashes) and one for values (turning stored bytes back into objects).
 *
 * <p>Contract for implementations:
 *
 * <ul>
 *   <li>{@code fromBytes(toBytes(v))} equals {@code v} for every value {@code v} that {@code toBytes}
 *       accepts. Equal values must produce equal bytes, because keys are found by hashing their
 *       bytes.
 *   <li>{@link #fromBytes(byte[], int, int)} reads a slice so the store can decode straight out of
 *       its own buffers without copying the slice first. It must neither modify the slice nor keep a
 *       reference to {@code bytes} after returning: the store may reuse that buffer for the next
 *       lookup.
 *   <li>{@link #toBytes} returns a new array that the caller owns; the store may keep it.
 *   <li>{@code null} is never a value: {@code toBytes(null)} throws {@link NullPointerException}
 *       whose message names the serializer.
 *   <li>{@link #name()} is written into the store's metadata and checked when the store is opened,
 *       so it must never change for a given byte format. Give a serializer a new name whenever its
 *       encoding changes.
 * </ul>
 *
 * <p>Thread-safety: a serializer is shared by every thread that reads the store, so implementations
 * must be thread-safe; the simplest way is to be immutable. All built-in serializers in {@link
 * Serializers} are immutable and thread-safe.
 *
 * @param <T> the type of the values
 */
public interface Serializer<T> {

  /**
   * The bytes of {@code value}, in a new array that the caller owns.
   *
   * @throws NullPointerException if {@code value} is null; the message names this serializer
   * @throws SerializationException if {@code value} cannot be represented (the message says what was
   *     expected)
   */
  byte[] toBytes(T value);

  /**
   * Reads a value from {@code bytes[offset, offset + length)}. Only that slice is read; bytes outside
   * it are ignored.
   *
   * @throws NullPointerException if {@code bytes} is null
   * @throws IndexOutOfBoundsException if the slice does not lie within {@code bytes}: that is a bug of
   *     the caller, not malformed data
   * @throws SerializationException if the slice is not a valid encoding; the message names this
   *     serializer and says what was expected
   */
  T fromBytes(byte[] bytes, int offset, int length);

  /**
   * Reads a value from the whole of {@code bytes}; same as {@code fromBytes(bytes, 0,
   * bytes.length)}.
   *
   * @throws NullPointerException if {@code bytes} is null
   * @throws SerializationException if {@code bytes} is not a valid encoding
   */
  default T fromBytes(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return fromBytes(bytes, 0, bytes.length);
  }

  /**
   * The exact length of every serialized value if all have the same length, else {@code -1}. A store
   * whose values all have one length can locate value {@code i} at {@code i * fixedLength()} and
   * needs no offsets file, so return the length whenever the format guarantees it.
   */
  default int fixedLength() {
    return -1;
  }

  /**
   * A stable name for this serializer's byte format, recorded in the store's metadata and used to
   * find the serializer again with {@link Serializers#byName}: for example {@code "utf8-string"},
   * {@code "int64-be"}, {@code "bytes"} or {@code "fixed-bytes:16"}.
   */
  String name();
}
