package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.varve.builder.StoreBuilder;
import io.varve.core.testing.TestRecords;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Store#get(byte[], int, int, byte[], int)} promises not to allocate: checked with the
 * JVM's per-thread allocation counter after the lookup path has been compiled, on fixed-size
 * records (which read ahead for the record while the index decodes) and variable-size ones.
 */
class ZeroAllocationLookupTest {
  private static final int RECORDS = 20_000;
  private static final int WARM_UP_LOOKUPS = 300_000;
  private static final int MEASURED_LOOKUPS = 100_000;

  @TempDir Path temp;

  @ParameterizedTest(name = "fixed-size records: {0}")
  @ValueSource(booleans = {true, false})
  void lookupsIntoACallerArrayAllocateNothing(boolean fixedSize) throws Exception {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    assumeTrue(
        threads instanceof com.sun.management.ThreadMXBean
            && ((com.sun.management.ThreadMXBean) threads).isThreadAllocatedMemorySupported(),
        "this JVM does not count allocated bytes per thread");
    com.sun.management.ThreadMXBean allocation = (com.sun.management.ThreadMXBean) threads;
    Path dir = temp.resolve("store");
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      for (int i = 0; i < RECORDS; i++) {
        builder.put(key(i), value(i, fixedSize));
      }
      builder.build();
    }
    long seed = 0xA110CL;
    SplittableRandom random = TestRecords.seeded("ZeroAllocationLookupTest", seed);
    int[] order = new int[1 << 12];
    byte[][] keys = new byte[order.length][];
    for (int i = 0; i < order.length; i++) {
      order[i] = random.nextInt(RECORDS);
      keys[i] = key(order[i]);
    }
    byte[] target = new byte[64];
    try (Store store = Store.open(dir)) {
      long checksum = lookups(store, keys, target, WARM_UP_LOOKUPS);
      long thread = Thread.currentThread().getId();
      long before = allocation.getThreadAllocatedBytes(thread);
      checksum += lookups(store, keys, target, MEASURED_LOOKUPS);
      long allocated = allocation.getThreadAllocatedBytes(thread) - before;
      assertTrue(checksum > 0);
      assertTrue(
          allocated < MEASURED_LOOKUPS / 10,
          allocated + " bytes allocated by " + MEASURED_LOOKUPS + " lookups (" + (double) allocated / MEASURED_LOOKUPS + " per lookup)");
      for (int i = 0; i < 100; i++) {
        int length = store.get(keys[i], 0, keys[i].length, target, 0);
        byte[] expected = value(order[i], fixedSize);
        assertEquals(expected.length, length);
        assertEquals(ByteBuffer.wrap(expected), ByteBuffer.wrap(target, 0, length));
      }
    }
  }

  private static long lookups(Store store, byte[][] keys, byte[] target, int count) {
    long sum = 0;
    for (int i = 0; i < count; i++) {
      byte[] key = keys[i & (keys.length - 1)];
      sum += store.get(key, 0, key.length, target, 0);
    }
    return sum;
  }

  private static byte[] key(int i) {
    return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(i * 0x9E3779B97F4A7C15L).array();
  }

  private static byte[] value(int i, boolean fixedSize) {
    byte[] value = new byte[fixedSize ? 8 : 1 + i % 29];
    for (int j = 0; j < value.length; j++) {
      value[j] = (byte) (i * 31 + j);
    }
    return value;
  }
}
