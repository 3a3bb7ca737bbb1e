package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.ShardedStoreBuilder;
import io.varve.builder.StoreBuilder;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.StoreRoot;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower whose current version's data file is cut under it (as {@code cp} over a served store
 * does: truncate, then write) refuses lookups, since its mapped store failed as a whole. Once the
 * file is whole again (repaired in place, or the same build published again under the same name),
 * the next refresh must open the version anew and serve it: the refresh saw the same name and the
 * same meta file and kept the failed store, which refused every lookup until another version was
 * published. While the version cannot be opened, the refresh says so and lookups say why they are
 * refused.
 */
class FollowerRecoveryTest {
  private static final long SEED = 0x2EC0FE2L;
  private static final int RECORDS = 50_000;
  /** Cut inside a page: the rest of the page reads as zeros, so the first record there fails its check without a JVM fault. */
  private static final long CUT = 8 * 4096 + 100;

  @TempDir Path temp;
  private Map<ByteBuffer, byte[]> records;
  private StoreRoot root;

  @BeforeEach
  void records() throws IOException {
    System.out.println("FollowerRecoveryTest seed " + SEED);
    records = TestRecords.variable(RECORDS, SEED, 16, 60);
    root = StoreRoot.open(temp.resolve("root"));
  }

  @Test
  void aFollowingStoreRecoversOnceItsCurrentVersionIsRepairedInPlace() throws IOException {
    Path version = root.newVersion();
    try (StoreBuilder builder = StoreBuilder.create(version)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    root.publish(version.getFileName().toString());
    try (FollowingStore store = FollowingStore.open(root.directory())) {
      checkRecovery(version, version.resolve("data"), store::get, store::refresh);
    }
  }

  @Test
  void aFollowingShardedStoreRecoversOnceItsCurrentVersionIsRepairedInPlace() throws IOException {
    Path version = root.newVersion();
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(version, 2)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    root.publish(version.getFileName().toString());
    Path shard;
    try (ShardedStore opened = ShardedStore.open(version)) {
      shard = opened.shardDirectories().get(1);
    }
    try (FollowingShardedStore store = FollowingShardedStore.open(root.directory())) {
      checkRecovery(shard, shard.resolve("data"), store::get, store::refresh);
    }
  }

  /**
   * A loaded follower whose version's data file had a damaged record when it was loaded (a load
   * compares the data file's footer with the meta file, and reads the records unchecked): lookups
   * of that record fail on the copy in memory. Once the file is repaired in place, the next refresh
   * must load the version anew: it saw the same name and the same meta file and kept the damaged
   * copy for good. While the file is still damaged, the refresh says so and keeps the copy it has.
   */
  @Test
  void aLoadedFollowingStoreReloadsItsCurrentVersionOnceItsDamagedRecordsAreRepaired() throws IOException {
    Path version = root.newVersion();
    try (StoreBuilder builder = StoreBuilder.create(version)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    root.publish(version.getFileName().toString());
    Path data = version.resolve("data");
    byte[] intact = Files.readAllBytes(data);
    long damagedByte = intact.length / 2;
    try (FileChannel channel = FileChannel.open(data, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(new byte[] {(byte) ~intact[(int) damagedByte]}), damagedByte);
    }
    try (FollowingStore store = FollowingStore.open(root.directory(), DataAccess.LOADED)) {
      List<byte[]> damagedKeys = new ArrayList<>();
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        try {
          assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
        } catch (CorruptStoreException damaged) {
          damagedKeys.add(e.getKey().array());
        }
      }
      assertEquals(1, damagedKeys.size(), "records damaged by byte " + damagedByte);
      byte[] damagedKey = damagedKeys.get(0);

      CorruptStoreException stillDamaged =
          assertThrows(CorruptStoreException.class, store::refresh, "a refresh ignored the damaged copy");
      assertTrue(stillDamaged.getMessage().contains("cannot be opened") && stillDamaged.getMessage().contains(data.toString()),
          stillDamaged.getMessage());
      System.out.println("FollowerRecoveryTest: refresh while damaged: " + stillDamaged.getMessage());
      assertThrows(CorruptStoreException.class, () -> store.get(damagedKey), "the damaged copy is kept");

      try (FileChannel channel = FileChannel.open(data, StandardOpenOption.WRITE)) {
        channel.write(ByteBuffer.wrap(intact), 0);
      }
      assertTrue(store.refresh(), "the repaired version was not loaded again");
      checkAll(store::get);
      assertFalse(store.refresh(), "nothing changed since");
    }
  }

  private interface Refresh {
    boolean run() throws IOException;
  }

  /** Cuts {@code data} (of the store in {@code damaged}) under the follower, then repairs it. */
  private void checkRecovery(Path damaged, Path data, Function<byte[], byte[]> get, Refresh refresh) throws IOException {
    List<byte[]> inRecordOrder = new ArrayList<>();
    try (Store store = Store.open(damaged)) {
      for (long i = 0; i < store.size(); i++) {
        inRecordOrder.add(store.keyAt(i));
      }
    }
    checkAll(get);
    byte[] intact = Files.readAllBytes(data);
    try (FileChannel channel = FileChannel.open(data, StandardOpenOption.WRITE)) {
      channel.truncate(CUT);
    }
    CorruptStoreException refused = null;
    for (int i = 0; i < inRecordOrder.size() && refused == null; i++) {
      try {
        get.apply(inRecordOrder.get(i));
      } catch (CorruptStoreException e) {
        refused = e;
      }
    }
    assertTrue(refused != null, "no lookup saw the cut");
    assertTrue(refused.getMessage().contains("truncated or rewritten under the open store"), refused.getMessage());
    byte[] first = inRecordOrder.get(0);
    assertThrows(CorruptStoreException.class, () -> get.apply(first), "the failed store served a lookup");

    CorruptStoreException stillCut = assertThrows(CorruptStoreException.class, refresh::run, "a refresh ignored the failed version");
    assertTrue(stillCut.getMessage().contains("cannot be opened") && stillCut.getMessage().contains(damaged.toString()),
        stillCut.getMessage());
    System.out.println("FollowerRecoveryTest: refresh while cut: " + stillCut.getMessage());
    CorruptStoreException stillRefused = assertThrows(CorruptStoreException.class, () -> get.apply(first));
    assertTrue(stillRefused.getMessage().contains("truncated or rewritten under the open store"), stillRefused.getMessage());

    try (FileChannel channel = FileChannel.open(data, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(intact), 0);
    }
    assertTrue(refresh.run(), "the repaired version was not opened again");
    checkAll(get);
    assertFalse(refresh.run(), "nothing changed since");
  }

  private void checkAll(Function<byte[], byte[]> get) {
    for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
      assertArrayEquals(e.getValue(), get.apply(e.getKey().array()));
    }
    assertEquals(null, get.apply(new byte[17])); // longer than any key
  }
}
