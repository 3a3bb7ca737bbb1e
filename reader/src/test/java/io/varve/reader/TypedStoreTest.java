package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.builder.TypedStoreBuilder;
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
}
