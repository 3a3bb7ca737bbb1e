package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.ShardedStoreBuilder;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.shard.ShardManifest;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreRoot;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FollowingShardedStore} over a {@link StoreRoot} of sharded versions: every key of version
 * {@code v} maps to its reference value (a {@link java.util.HashMap} of random records) tagged
 * {@code v}, so that an answer shows which version gave it and a {@code getAll} mixing two versions
 * is caught. The versions differ in shard count, and one holds its shards as artifacts.
 */
class FollowingShardedStoreTest {
  private static final long SEED = 0xF0110E5L;
  private static final int KEYS = 3_000;
  private static final int SWAPS = Integer.getInteger("varve.closeRace.rounds", 300) / 2;

  @TempDir Path temp;
  private Map<ByteBuffer, byte[]> records;
  private List<byte[]> keys;
  private StoreRoot root;

  @BeforeEach
  void records() throws IOException {
    SplittableRandom random = TestRecords.seeded("FollowingShardedStoreTest", SEED);
    records = TestRecords.variable(KEYS, random.nextLong(), 24, 40);
    keys = new ArrayList<>();
    records.keySet().forEach(k -> keys.add(k.array()));
    root = StoreRoot.open(temp.resolve("root"));
  }

  /** Builds the next version: every key's value is "v" + tag + ":" and its reference value. */
  private String buildVersion(int tag, int shards, boolean artifacts) throws IOException {
    Path dir = root.newVersion();
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(dir, shards)) {
      if (artifacts) {
        builder.shardsAsArtifacts();
      }
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), tagged(tag, e.getValue()));
      }
      builder.build();
    }
    return dir.getFileName().toString();
  }

  private static byte[] tagged(int tag, byte[] value) {
    byte[] prefix = ("v" + tag + ":").getBytes(StandardCharsets.US_ASCII);
    byte[] bytes = Arrays.copyOf(prefix, prefix.length + value.length);
    System.arraycopy(value, 0, bytes, prefix.length, value.length);
    return bytes;
  }

  /** The tag of {@code value}, after checking that the rest is {@code key}'s reference value. */
  private int tagOf(byte[] key, byte[] value) {
    byte[] expected = records.get(ByteBuffer.wrap(key));
    if (value == null) {
      throw new AssertionError("key " + Arrays.toString(key) + " not found");
    }
    int colon = 0;
    while (colon < value.length && value[colon] != ':') {
      colon++;
    }
    if (colon == value.length || value[0] != 'v' || !Arrays.equals(expected, Arrays.copyOfRange(value, colon + 1, value.length))) {
      throw new AssertionError("key " + Arrays.toString(key) + ": wrong value " + Arrays.toString(value));
    }
    return Integer.parseInt(new String(value, 1, colon - 1, StandardCharsets.US_ASCII));
  }

  private void checkAll(FollowingShardedStore store, int tag) {
    for (byte[] key : keys) {
      assertEquals(tag, tagOf(key, store.get(key)));
      assertTrue(store.contains(key));
    }
    byte[][] values = new byte[keys.size()][];
    store.getAll(keys.toArray(new byte[0][]), values);
    for (int i = 0; i < values.length; i++) {
      assertEquals(tag, tagOf(keys.get(i), values[i]));
    }
    byte[] absent = new byte[25];   // longer than any key
    assertNull(store.get(absent));
    assertFalse(store.contains(absent));
  }

  @Test
  void followsPublishedVersionsOfAnyShardCount() throws IOException {
    root.publish(buildVersion(1, 3, false));
    try (FollowingShardedStore store = FollowingShardedStore.open(root.directory())) {
      assertEquals("v0000000001", store.version());
      assertEquals(3, store.shardCount());
      checkAll(store, 1);
      assertFalse(store.refresh(), "nothing new");
      root.publish(buildVersion(2, 5, true));
      assertTrue(store.refresh());
      assertEquals("v0000000002", store.version());
      assertEquals(5, store.shardCount());
      assertEquals(KEYS, store.size());
      assertEquals(KEYS, store.stats().records());
      assertEquals(5, store.manifest().shardCount());
      checkAll(store, 2);
      assertEquals("v0000000001", root.rollback());
      assertTrue(store.refresh());
      assertEquals(3, store.shardCount());
      checkAll(store, 1);
    }
  }

  /** A version name used again after a rollback and a delete is another build: it is swapped in. */
  @Test
  void aVersionNameUsedAgainIsSwappedIn() throws IOException {
    root.publish(buildVersion(1, 2, false));
    root.publish(buildVersion(2, 2, false));
    try (FollowingShardedStore store = FollowingShardedStore.open(root.directory())) {
      checkAll(store, 2);
      root.rollback();
      root.delete("v0000000002");
      assertEquals("v0000000002", buildVersion(3, 2, false));
      root.publish("v0000000002");
      assertTrue(store.refresh(), "the version named v0000000002 is another build");
      checkAll(store, 3);
      assertFalse(store.refresh(), "nothing new");
    }
  }

  @Test
  void aSingleStoreRootIsRefusedClearly() throws IOException {
    assertThrows(NoSuchFileException.class, () -> FollowingShardedStore.open(root.directory()), "nothing published");
    Path dir = root.newVersion();
    try (io.varve.builder.StoreBuilder builder = io.varve.builder.StoreBuilder.create(dir)) {
      builder.put(keys.get(0), new byte[1]);
      builder.build();
    }
    root.publish(dir.getFileName().toString());
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> FollowingShardedStore.open(root.directory()));
    assertTrue(e.getMessage().contains(ShardManifest.FILE_NAME), e.getMessage());
  }

  @Test
  void anUnfinishedShardedVersionCannotBePublished() throws IOException {
    String name = buildVersion(1, 2, false);
    Files.delete(root.path(name).resolve(ShardManifest.FILE_NAME));
    assertThrows(NoSuchFileException.class, () -> root.publish(name));
    assertTrue(root.current().isEmpty());
  }

  @Test
  void aVersionThatCannotBeOpenedLeavesTheOldOneServed() throws IOException {
    root.publish(buildVersion(1, 3, false));
    try (FollowingShardedStore store = FollowingShardedStore.open(root.directory())) {
      String noManifest = buildVersion(2, 3, false);
      root.publish(noManifest);
      Files.delete(root.path(noManifest).resolve(ShardManifest.FILE_NAME));
      NoSuchFileException missing = assertThrows(NoSuchFileException.class, store::refresh);
      assertTrue(missing.getMessage().contains("version " + noManifest + " cannot be opened, still serving v0000000001"),
          missing.getMessage());
      stillServes(store, "v0000000001", 1);

      String damagedManifest = buildVersion(3, 3, false);
      flipByte(root.path(damagedManifest).resolve(ShardManifest.FILE_NAME), 40);
      root.publish(damagedManifest);
      CorruptStoreException corrupt = assertThrows(CorruptStoreException.class, store::refresh);
      assertTrue(corrupt.getMessage().contains("still serving v0000000001"), corrupt.getMessage());
      assertTrue(corrupt.getMessage().contains(ShardManifest.FILE_NAME), corrupt.getMessage());
      stillServes(store, "v0000000001", 1);

      String damagedShard = buildVersion(4, 3, false);
      flipByte(root.path(damagedShard).resolve("shard-00001").resolve(StoreFile.META.fileName()), 30);
      root.publish(damagedShard);
      corrupt = assertThrows(CorruptStoreException.class, store::refresh);
      assertTrue(corrupt.getMessage().contains("shard 1 of 3 (shard-00001)"), corrupt.getMessage());
      stillServes(store, "v0000000001", 1);

      String missingShard = buildVersion(5, 3, true);
      Files.delete(root.path(missingShard).resolve("shard-00002.varve"));
      root.publish(missingShard);
      corrupt = assertThrows(CorruptStoreException.class, store::refresh);
      assertTrue(corrupt.getMessage().contains("shard 2 of 3 (shard-00002) is missing"), corrupt.getMessage());
      stillServes(store, "v0000000001", 1);

      root.publish(buildVersion(6, 2, false));
      assertTrue(store.refresh());
      checkAll(store, 6);
    }
  }

  private void stillServes(FollowingShardedStore store, String version, int tag) {
    assertEquals(version, store.version());
    checkAll(store, tag);
  }

  private static void flipByte(Path file, long position) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      channel.read(one, position);
      one.put(0, (byte) (one.get(0) ^ 0x10)).rewind();
      channel.write(one, position);
    }
  }

  /**
   * Three readers ({@code get}, {@code contains}, {@code getAll} of 64 keys) while a thread
   * publishes versions of 1, 4 and 7 shards in turn and refreshes after each: no lookup fails, every
   * answer is its key's reference value, and the values of one {@code getAll} carry one tag.
   */
  @Test
  void readersNeverFailNorMixVersionsWhileVersionsSwap() throws Exception {
    List<String> names = List.of(buildVersion(1, 1, false), buildVersion(2, 4, true), buildVersion(3, 7, false));
    root.publish(names.get(0));
    try (FollowingShardedStore store = FollowingShardedStore.open(root.directory())) {
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong lookups = new AtomicLong();
      List<Thread> readers = startReaders(store, 3, stop, failure, lookups, null);
      int swaps = 0;
      for (int swap = 1; swap <= SWAPS && failure.get() == null; swap++) {
        root.publish(names.get(swap % names.size()));
        swaps += store.refresh() ? 1 : 0;
      }
      stop.set(true);
      for (Thread reader : readers) {
        reader.join();
      }
      if (failure.get() != null) {
        throw new AssertionError("a lookup failed or mixed versions during the swaps", failure.get());
      }
      System.out.println("FollowingShardedStoreTest: " + swaps + " swaps, " + lookups.get() + " lookups");
      assertEquals(SWAPS, swaps);
      assertTrue(lookups.get() > 0);
      checkAll(store, SWAPS % names.size() + 1);
    }
  }

  /**
   * Closes the follower while readers run and versions swap: until the close every answer is right,
   * after it every call throws {@link StoreClosedException}, and so does a refresh.
   */
  @Test
  void closeUnderLoad() throws Exception {
    List<String> names = List.of(buildVersion(1, 2, false), buildVersion(2, 5, true));
    SplittableRandom random = new SplittableRandom(SEED);
    for (int round = 0; round < 10; round++) {
      root.publish(names.get(0));
      FollowingShardedStore store = FollowingShardedStore.open(root.directory());
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicBoolean closing = new AtomicBoolean();
      AtomicLong lookups = new AtomicLong();
      List<Thread> readers = startReaders(store, 3, new AtomicBoolean(), failure, lookups, closing);
      Thread refresher = new Thread(() -> {
        try {
          for (int swap = 1; ; swap++) {
            synchronized (root) {
              root.publish(names.get(swap % 2));
            }
            store.refresh();
          }
        } catch (StoreClosedException expected) {
          if (!closing.get()) {
            failure.compareAndSet(null, expected);
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "refresher");
      refresher.start();
      Thread.sleep(5 + random.nextInt(20));
      closing.set(true);
      store.close();
      refresher.join();
      for (Thread reader : readers) {
        reader.join();
      }
      if (failure.get() != null) {
        throw new AssertionError("round " + round + ": a call failed before the close", failure.get());
      }
      assertTrue(store.isClosed());
      byte[] key = keys.get(0);
      assertThrows(StoreClosedException.class, () -> store.get(key));
      assertThrows(StoreClosedException.class, () -> store.contains(key));
      assertThrows(StoreClosedException.class, () -> store.getAll(new byte[][] {key}, new byte[1][]));
      assertThrows(StoreClosedException.class, store::version);
      assertThrows(StoreClosedException.class, store::shardCount);
      assertThrows(StoreClosedException.class, store::stats);
      assertThrows(StoreClosedException.class, store::refresh);
      store.close();
    }
  }

  /**
   * Reader threads that check every answer until {@code stop}, or until a {@link
   * StoreClosedException}, which is a failure unless {@code closing} (when given) is set.
   */
  private List<Thread> startReaders(FollowingShardedStore store, int count, AtomicBoolean stop, AtomicReference<Throwable> failure,
      AtomicLong lookups, AtomicBoolean closing) {
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < count; t++) {
      SplittableRandom random = new SplittableRandom(SEED + t);
      int kind = t;
      Thread thread = new Thread(() -> {
        byte[][] batch = new byte[64][];
        byte[][] values = new byte[64][];
        while (!stop.get() && failure.get() == null) {
          try {
            if (kind == 2) {
              for (int i = 0; i < batch.length; i++) {
                batch[i] = keys.get(random.nextInt(keys.size()));
              }
              batch[random.nextInt(batch.length)] = new byte[25];
              store.getAll(batch, values);
              int tag = -1;
              for (int i = 0; i < batch.length; i++) {
                if (batch[i].length == 25) {
                  if (values[i] != null) {
                    throw new AssertionError("an absent key found");
                  }
                  continue;
                }
                int found = tagOf(batch[i], values[i]);
                if (tag >= 0 && found != tag) {
                  throw new AssertionError("one getAll saw versions " + tag + " and " + found);
                }
                tag = found;
              }
            } else {
              byte[] key = keys.get(random.nextInt(keys.size()));
              tagOf(key, store.get(key));
              if (kind == 1 && !store.contains(key)) {
                throw new AssertionError("contains: a key not found");
              }
            }
            lookups.incrementAndGet();
          } catch (StoreClosedException closed) {
            if (closing == null || !closing.get()) {
              failure.compareAndSet(null, closed);
            }
            return;
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
            return;
          }
        }
      }, "reader-" + t);
      thread.start();
      threads.add(thread);
    }
    return threads;
  }
}
