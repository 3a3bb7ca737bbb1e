package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.builder.TypedStoreBuilder;
import io.varve.core.serial.SerializationException;
import io.varve.core.serial.Serializer;
import io.varve.core.serial.Serializers;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TypedStoreTest {
  @TempDir Path temp;

  @Test
  void stringsToLongsRoundTrip() throws IOException {
    long seed = 0x7E57L;
    SplittableRandom random = TestRecords.seeded("TypedStoreTest", seed);
    Map<String, Long> expected = new HashMap<>();
    Path dir = temp.resolve("typed");
    try (TypedStoreBuilder<String, Long> builder =
        TypedStoreBuilder.of(StoreBuilder.create(dir), Serializers.utf8(), Serializers.int64())) {
      for (int i = 0; i < 5000; i++) {
        String key = "κλειδί-" + random.nextInt() + "-🔑";
        long value = random.nextLong();
        if (expected.putIfAbsent(key, value) == null) {
          builder.put(key, value);
        }
      }
      builder.build();
    }
    try (TypedStore<String, Long> store = TypedStore.of(Store.open(dir), Serializers.utf8(), Serializers.int64())) {
      for (Map.Entry<String, Long> e : expected.entrySet()) {
        assertEquals(e.getValue(), store.get(e.getKey()));
        long i = store.indexOf(e.getKey());
        assertEquals(e.getKey(), store.keyAt(i));
        assertEquals(e.getValue(), store.valueAt(i));
        assertTrue(store.contains(e.getKey()));
      }
      assertNull(store.get("absent"));
    }
  }

  @Test
  void otherSerializersThanRecordedAreRefused() throws IOException {
    Path dir = temp.resolve("typed");
    try (TypedStoreBuilder<String, Long> builder =
        TypedStoreBuilder.of(StoreBuilder.create(dir), Serializers.utf8(), Serializers.int64())) {
      builder.put("a", 1L).build();
    }
    try (Store store = Store.open(dir)) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> TypedStore.of(store, Serializers.utf8(), Serializers.int32()));
      assertTrue(e.getMessage().contains("int64-be"), e.getMessage());
    }
  }

  @Test
  void aStoreThatRecordsNoSerializersIsRefusedUnlessUnchecked() throws IOException {
    Path dir = temp.resolve("raw");
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      builder.put("a".getBytes(java.nio.charset.StandardCharsets.UTF_8), new byte[] {0, 0, 0, 0, 0, 0, 0, 7}).build();
    }
    try (Store store = Store.open(dir)) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> TypedStore.of(store, Serializers.utf8(), Serializers.int64()));
      assertTrue(e.getMessage().contains("TypedStore.unchecked"), e.getMessage());
      assertEquals(7L, TypedStore.unchecked(store, Serializers.utf8(), Serializers.int64()).get("a"));
    }
  }

  /**
   * A serializer that breaks its contract by returning null (a decoder that maps what it cannot
   * read to null, say): the typed view answered null, which reads as "absent", for keys the store
   * holds. Now the call fails naming the serializer and the store.
   */
  @Test
  void aSerializerReturningNullIsRefusedNotTakenForAbsence() throws IOException {
    Path dir = temp.resolve("raw");
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      builder.put("a".getBytes(java.nio.charset.StandardCharsets.UTF_8), new byte[] {7}).build();
    }
    Serializer<String> nulls =
        new Serializer<>() {
          @Override
          public byte[] toBytes(String value) {
            return null;
          }

          @Override
          public String fromBytes(byte[] bytes, int offset, int length) {
            return null;
          }

          @Override
          public String name() {
            return "nulls";
          }
        };
    try (Store store = Store.open(dir)) {
      TypedStore<String, String> values = TypedStore.unchecked(store, Serializers.utf8(), nulls);
      SerializationException e = assertThrows(SerializationException.class, () -> values.get("a"));
      assertTrue(e.getMessage().contains("nulls") && e.getMessage().contains(dir.toString()), e.getMessage());
      assertThrows(SerializationException.class, () -> values.valueAt(0));
      assertNull(values.get("absent"), "an absent key is still null");
      TypedStore<String, String> keys = TypedStore.unchecked(store, nulls, Serializers.utf8());
      assertThrows(SerializationException.class, () -> keys.get("a"));
      assertThrows(SerializationException.class, () -> keys.contains("a"));
      assertThrows(SerializationException.class, () -> keys.keyAt(0));
      assertThrows(NullPointerException.class, () -> TypedStore.of(store, null, Serializers.utf8()));
    }
  }
}
