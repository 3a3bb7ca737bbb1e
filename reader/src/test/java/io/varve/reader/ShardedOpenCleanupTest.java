package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.ShardedStoreBuilder;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sharded store whose last shard cannot be opened closes the shards it opened before it throws.
 * When closing one of them failed too, that error replaced the shard's (the one the caller needs)
 * and the shards after it were left open (mapped). Every shard is now closed, the shard's error is
 * thrown, and the failed closes are suppressed in it. The closes fail through a {@link
 * RecordMemory} whose close throws, given through {@link ShardedStore#open(Path,
 * RecordMemory.Opener)}.
 */
class ShardedOpenCleanupTest {
  private static final long SEED = 0xC1EA2L;
  private static final int SHARDS = 4;

  @TempDir Path temp;

  @Test
  void everyOpenedShardIsClosedAndTheShardsErrorIsThrown() throws IOException {
    System.out.println("ShardedOpenCleanupTest seed " + SEED);
    Path root = temp.resolve("sharded");
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, SHARDS)) {
      for (Map.Entry<ByteBuffer, byte[]> e : TestRecords.variable(4_000, SEED, 16, 32).entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    Path last;
    try (ShardedStore store = ShardedStore.open(root)) {
      last = store.shardDirectories().get(SHARDS - 1);
    }
    try (Stream<Path> files = Files.walk(last)) {
      for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(file);
      }
    }
    List<FailingClose> opened = new ArrayList<>();
    CorruptStoreException e =
        assertThrows(CorruptStoreException.class, () -> ShardedStore.open(root, (region, access) -> {
          FailingClose memory = new FailingClose(RecordMemory.open(region, access), opened.size() < 2 ? "close " + opened.size() : null);
          opened.add(memory);
          return memory;
        }), "the error of a failed close replaced the missing shard's");
    assertTrue(e.getMessage().contains("is missing"), e.getMessage());
    assertEquals(SHARDS - 1, opened.size());
    for (int i = 0; i < opened.size(); i++) {
      assertTrue(opened.get(i).closed, "shard " + i + " left open");
    }
    assertEquals(List.of("close 0", "close 1"), Arrays.stream(e.getSuppressed()).map(Throwable::getMessage).toList());
    assertEquals(0, mappingsUnder(temp.toRealPath()), "a shard left mapped");
  }

  /** The same in close: a shard whose close fails does not leave the shards after it open. */
  @Test
  void closeClosesEveryShardAndThrowsTheFirstFailure() throws IOException {
    Path root = temp.resolve("sharded");
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, SHARDS)) {
      for (Map.Entry<ByteBuffer, byte[]> e : TestRecords.variable(4_000, SEED, 16, 32).entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    List<FailingClose> opened = new ArrayList<>();
    ShardedStore store = ShardedStore.open(root, (region, access) -> {
      FailingClose memory = new FailingClose(RecordMemory.open(region, access), opened.size() < 2 ? "close " + opened.size() : null);
      opened.add(memory);
      return memory;
    });
    IllegalStateException e = assertThrows(IllegalStateException.class, store::close);
    assertEquals("close 0", e.getMessage());
    assertEquals(List.of("close 1"), Arrays.stream(e.getSuppressed()).map(Throwable::getMessage).toList());
    assertEquals(SHARDS, opened.size());
    for (int i = 0; i < opened.size(); i++) {
      assertTrue(opened.get(i).closed, "shard " + i + " left open");
    }
    assertEquals(0, mappingsUnder(temp.toRealPath()), "a shard left mapped");
    assertTrue(store.isClosed());
    store.close(); // idempotent: nothing is closed twice
  }

  /** Records of a real memory whose close frees them, then throws {@code failure} (null: does not throw). */
  private static final class FailingClose extends RecordMemory {
    private final RecordMemory memory;
    private final String failure;
    boolean closed;

    FailingClose(RecordMemory memory, String failure) {
      this.memory = memory;
      this.failure = failure;
    }

    @Override
    long length() {
      return memory.length();
    }

    @Override
    long readLittleEndianLong(long position) {
      return memory.readLittleEndianLong(position);
    }

    @Override
    long readNativeLong(long position) {
      return memory.readNativeLong(position);
    }

    @Override
    int readLittleEndianInt(long position) {
      return memory.readLittleEndianInt(position);
    }

    @Override
    int xxh3Checksum(long position, long length, long payloadOffset) {
      return memory.xxh3Checksum(position, length, payloadOffset);
    }

    @Override
    byte readByte(long position) {
      return memory.readByte(position);
    }

    @Override
    void read(long position, byte[] target, int offset, int count) {
      memory.read(position, target, offset, count);
    }

    @Override
    void close() {
      memory.close();
      closed = true;
      if (failure != null) {
        throw new IllegalStateException(failure);
      }
    }
  }

  private static long mappingsUnder(Path directory) throws IOException {
    try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
      return lines.filter(line -> line.contains(" " + directory + "/")).count();
    }
  }
}
