package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/** Many readers at once, closing under load, and no mapping or file handle left after close. */
class StoreConcurrencyTest {
  @TempDir Path temp;

  private Map<ByteBuffer, byte[]> buildStore(Path dir, int n) throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.variable(n, 0xC0C0L, 32, 32);
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    return records;
  }

  /** Unmapping (mapped) or freeing (loaded) under a reader would crash the JVM or read garbage. */
  @ParameterizedTest
  @EnumSource(DataAccess.class)
  void closingWhileOtherThreadsReadNeverCrashes(DataAccess access) throws Exception {
    Path dir = temp.resolve("store");
    Map<ByteBuffer, byte[]> records = buildStore(dir, 20_000);
    List<byte[]> keys = new ArrayList<>();
    records.keySet().forEach(k -> keys.add(k.array()));
    for (int round = 0; round < 20; round++) {
      Store store = Store.open(dir, access);
      int threads = 4;
      CountDownLatch started = new CountDownLatch(threads);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicLong lookups = new AtomicLong();
      List<Thread> readers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int offset = t;
        Thread reader =
            new Thread(
                () -> {
                  started.countDown();
                  for (int i = offset; ; i = (i + 7) % keys.size()) {
                    byte[] key = keys.get(i);
                    try {
                      byte[] value = store.get(key);
                      assertArrayEquals(records.get(ByteBuffer.wrap(key)), value);
                      lookups.incrementAndGet();
                    } catch (IllegalStateException closed) {
                      assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
                      return;
                    } catch (Throwable e) {
                      failure.compareAndSet(null, e);
                      return;
                    }
                  }
                });
        reader.start();
        readers.add(reader);
      }
      started.await();
      Thread.sleep(5);
      store.close();
      for (Thread reader : readers) {
        reader.join();
      }
      if (failure.get() != null) {
        throw new AssertionError("reader failed in round " + round, failure.get());
      }
      assertTrue(lookups.get() > 0);
    }
  }

  @Test
  void closeReleasesTheMappingAndFileHandles() throws IOException {
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(Path.of("/proc/self/maps")), "needs Linux /proc");
    Path dir = temp.resolve("store");
    buildStore(dir, 1000);
    Path data = dir.resolve("data").toRealPath();
    Store store = Store.open(dir);
    assertTrue(mappingsOf(data) > 0, "the data file is mapped while open");
    store.close();
    assertEquals(0, mappingsOf(data), "no mapping of the data file after close");
    assertEquals(0, openHandlesTo(dir.toRealPath()), "no open file handle into the store after close");
  }

  private static long mappingsOf(Path file) throws IOException {
    try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
      return lines.filter(line -> line.endsWith(file.toString())).count();
    }
  }

  private static long openHandlesTo(Path dir) throws IOException {
    long count = 0;
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          if (Files.readSymbolicLink(fd).startsWith(dir)) {
            count++;
          }
        } catch (IOException gone) {
          // closed while listing
        }
      }
    }
    return count;
  }
}
