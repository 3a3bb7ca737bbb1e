package io.varve.reader;

import io.varve.core.serial.SerializationException;
import io.varve.core.serial.Serializer;
import io.varve.core.store.StoreMeta;
import java.io.Closeable;
import java.util.Objects;

/**
 * A typed view of a {@link Store}: keys and values go through {@link Serializer}s.
 *
 * <pre>{@code
 * try (TypedStore<String, Long> counts =
 *     TypedStore.of(Store.open(dir), Serializers.utf8(), Serializers.int64())) {
 *   Long apples = counts.get("apples");   // null when absent
 * }
 * }</pre>
 *
 * A store built by {@code TypedStoreBuilder} records the serializers it was built with (user
 * metadata {@value #KEY_SERIALIZER} and {@value #VALUE_SERIALIZER}); {@link #of} checks that they
 * are the ones given, and refuses a store that records none. A store built from raw bytes (by
 * {@code StoreBuilder}) is read through serializers of the caller's choosing with {@link
 * #unchecked}. Thread-safe when the serializers are (all built-in ones are); closing the view
 * closes the store.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class TypedStore<K, V> implements Closeable {
  /** The user-metadata entry naming the key serializer ({@link StoreMeta#KEY_SERIALIZER}). */
  public static final String KEY_SERIALIZER = StoreMeta.KEY_SERIALIZER;

  /** The user-metadata entry naming the value serializer ({@link StoreMeta#VALUE_SERIALIZER}). */
  public static final String VALUE_SERIALIZER = StoreMeta.VALUE_SERIALIZER;

  private final Store store;
  private final Serializer<K> keys;
  private final Serializer<V> values;

  private TypedStore(Store store, Serializer<K> keys, Serializer<V> values) {
    this.store = store;
    this.keys = keys;
    this.values = values;
  }

  /**
   * A typed view of {@code store}, which must have been built with these serializers.
   *
   * @throws IllegalArgumentException when the store names other serializers than these, or none
   */
  public static <K, V> TypedStore<K, V> of(Store store, Serializer<K> keys, Serializer<V> values) {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(values, "values");
    check(store, KEY_SERIALIZER, keys);
    check(store, VALUE_SERIALIZER, values);
    return new TypedStore<>(store, keys, values);
  }

  /**
   * A typed view of {@code store} through serializers it does not record, such as a store built
   * from raw bytes: the caller vouches that its keys and values are in these encodings.
   */
  public static <K, V> TypedStore<K, V> unchecked(Store store, Serializer<K> keys, Serializer<V> values) {
    return new TypedStore<>(Objects.requireNonNull(store, "store"), Objects.requireNonNull(keys, "keys"), Objects.requireNonNull(values, "values"));
  }

  private static void check(Store store, String entry, Serializer<?> serializer) {
    String recorded = store.meta().userMetadata().get(entry);
    if (recorded == null) {
      throw new IllegalArgumentException(
          store.directory() + " records no " + entry + " (it was not built by TypedStoreBuilder): read it with"
              + " TypedStore.unchecked(store, keys, values) if you know its encodings");
    }
    if (!recorded.equals(serializer.name())) {
      throw new IllegalArgumentException(
          store.directory() + " was built with " + entry + " = " + recorded + ", not " + serializer.name());
    }
  }

  /**
   * The value of {@code key}, or null when absent.
   *
   * @throws SerializationException when a serializer breaks its contract by returning null (a
   *     present value would otherwise read as absent)
   */
  public V get(K key) {
    byte[] value = store.get(keyBytes(key));
    return value == null ? null : decoded(values, values.fromBytes(value), "a value");
  }

  /** Whether the store holds {@code key}. */
  public boolean contains(K key) {
    return store.contains(keyBytes(key));
  }

  /** The position of {@code key} in hash order, or -1 ({@link Store#indexOf}). */
  public long indexOf(K key) {
    return store.indexOf(keyBytes(key));
  }

  /** The key at position {@code i} in hash order. */
  public K keyAt(long i) {
    return decoded(keys, keys.fromBytes(store.keyAt(i)), "a key");
  }

  /** The value at position {@code i} in hash order. */
  public V valueAt(long i) {
    return decoded(values, values.fromBytes(store.valueAt(i)), "a value");
  }

  private byte[] keyBytes(K key) {
    byte[] bytes = keys.toBytes(key);
    if (bytes == null) {
      throw new SerializationException(
          "serializer " + keys.name() + " encoded a key as null, not as bytes (looking it up in " + store.directory() + ")");
    }
    return bytes;
  }

  /** {@code decoded}, what {@code serializer} made of a record's bytes, which its contract says is never null. */
  private <T> T decoded(Serializer<T> serializer, T decoded, String what) {
    if (decoded == null) {
      throw new SerializationException(
          "serializer " + serializer.name() + " decoded " + what + " of " + store.directory() + " as null, which no value is");
    }
    return decoded;
  }

  /** The underlying store. */
  public Store store() {
    return store;
  }

  /** Closes the underlying store. */
  @Override
  public void close() {
    store.close();
  }
}
