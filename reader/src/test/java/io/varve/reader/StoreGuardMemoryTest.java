package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.builder.StoreBuilder;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lookup counts of a standalone store cost one counter until two lookups collide on it: a
 * {@link LookupGuard} took {@code 128 * 8 * processors} bytes from the open on (2 KiB on 2 cores,
 * 64 KiB on 64), which a process serving thousands of small stores paid for each. Close still
 * waits for every lookup in flight ({@link LookupGuardTest}, {@link StoreConcurrencyTest}).
 */
class StoreGuardMemoryTest {
  private static final long SEED = 0x5A0E6L;

  @TempDir Path temp;

  @Test
  void aStoreReadByOneThreadAtATimeHoldsOneCounter() throws IOException {
    System.out.println("StoreGuardMemoryTest seed " + Long.toHexString(SEED));
    Map<ByteBuffer, byte[]> records = TestRecords.variable(2_000, SEED, 8, 24);
    Path dir = temp.resolve("store");
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    for (DataAccess access : DataAccess.values()) {
      Store store = Store.open(dir, access);
      try {
        for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
          assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
        }
        long bytes = store.guard().ramBytesUsed();
        System.out.println("StoreGuardMemoryTest " + access + ": " + bytes + " bytes of lookup counts after "
            + records.size() + " lookups on one thread");
        assertEquals(Long.BYTES, bytes, access + ": bytes of lookup counts");
      } finally {
        store.close();
      }
      assertThrows(StoreClosedException.class, () -> store.get(new byte[3]));
    }
  }
}
