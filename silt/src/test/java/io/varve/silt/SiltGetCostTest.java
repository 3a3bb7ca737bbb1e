package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SiltGetCostTest {
  @TempDir Path temp;

  /**
   * A get once built the text of every check's error, error or not: three strings naming the
   * file per record read from a log or hash store.
   */
  @Test
  void getsFromLogAndHashStoresBuildNoErrorMessages() throws IOException {
    SiltOptions options = SiltOptions.builder().logStoreEntries(4096).backgroundMerges(false).build();
    int keys = 2000;
    try (SiltStore store = SiltStore.open(temp.resolve("a-directory-with-a-long-enough-name"), options)) {
      for (int i = 0; i < keys; i++) {
        store.put(key(i), value(i));
      }
      store.freezeLog();
      store.convertNow();
      for (int i = 0; i < keys; i += 2) {
        store.put(key(i), value(i + 1));
      }
      assertEquals(1, store.stats().hashStores());
      com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      for (int round = 0; round < 3; round++) {
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < keys; i++) {
          assertArrayEquals(value(i % 2 == 0 ? i + 1 : i), store.get(key(i)));
        }
        long perGet = (threads.getCurrentThreadAllocatedBytes() - before) / keys;
        // The value's copy, the key's hash and the log store's candidates: about 150 bytes.
        assertTrue(perGet < 400, "a get allocated " + perGet + " bytes");
      }
    }
  }

  private static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i) {
    return ("value-" + i).getBytes(StandardCharsets.UTF_8);
  }
}
