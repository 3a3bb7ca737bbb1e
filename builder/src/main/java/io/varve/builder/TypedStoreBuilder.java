package io.varve.builder;

import io.varve.core.serial.Serializer;
import io.varve.core.store.StoreMeta;
import java.io.Closeable;
import java.io.IOException;
import java.util.Objects;

/**
 * A {@link StoreBuilder} that takes typed keys and values, turning them into bytes with {@link
 * Serializer}s. The serializers' names are recorded in the store's user metadata under {@link
 * #KEY_SERIALIZER} and {@link #VALUE_SERIALIZER}, so that a typed reader can check it uses the
 * same ones.
 *
 * <pre>{@code
 * try (TypedStoreBuilder<String, Long> builder =
 *     TypedStoreBuilder.of(StoreBuilder.create(dir), Serializers.utf8(), Serializers.int64())) {
 *   builder.put("apples", 3L);
 *   builder.build();
 * }
 * }</pre>
 *
 * Not thread-safe, like the builder it wraps.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class TypedStoreBuilder<K, V> implements Closeable {
  /** The user-metadata entry naming the key serializer ({@link StoreMeta#KEY_SERIALIZER}). */
  public static final String KEY_SERIALIZER = StoreMeta.KEY_SERIALIZER;

  /** The user-metadata entry naming the value serializer ({@link StoreMeta#VALUE_SERIALIZER}). */
  public static final String VALUE_SERIALIZER = StoreMeta.VALUE_SERIALIZER;

  private final StoreBuilder builder;
  private final Serializer<K> keys;
  private final Serializer<V> values;

  private TypedStoreBuilder(StoreBuilder builder, Serializer<K> keys, Serializer<V> values) {
    this.builder = builder;
    this.keys = keys;
    this.values = values;
  }

  /** Wraps {@code builder} (configure it before the first put). */
  public static <K, V> TypedStoreBuilder<K, V> of(StoreBuilder builder, Serializer<K> keys, Serializer<V> values) {
    Objects.requireNonNull(builder, "builder");
    builder.metadata(KEY_SERIALIZER, keys.name());
    builder.metadata(VALUE_SERIALIZER, values.name());
    return new TypedStoreBuilder<>(builder, keys, values);
  }

  /** Adds a record. */
  public TypedStoreBuilder<K, V> put(K key, V value) throws IOException {
    builder.put(keys.toBytes(key), values.toBytes(value));
    return this;
  }

  /** The wrapped builder. */
  public StoreBuilder builder() {
    return builder;
  }

  /** Builds and publishes the store ({@link StoreBuilder#build()}). */
  public BuildSummary build() throws IOException {
    return builder.build();
  }

  @Override
  public void close() throws IOException {
    builder.close();
  }
}
