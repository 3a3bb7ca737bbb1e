package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreArtifacts;
import io.varve.builder.BuildOptions;
import io.varve.builder.DuplicatePolicy;
import io.varve.builder.ShardedStoreBuilder;
import io.varve.builder.StoreBuilder;
import io.varve.core.shard.ShardManifest;
import io.varve.core.shard.ShardRouter;
import io.varve.core.artifact.StoreArtifact;
import io.varve.core.artifact.ZipDirectory;
import io.varve.core.store.KeyMode;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A store packed into a one-file artifact answers every lookup as its directory does, mapped in
 * place (through Chronicle and through plain buffers), loaded, and streamed by {@link
 * StoreArtifacts#write}; verify passes; every entry is STORED at a multiple of 4 KiB.
 */
class StoreArtifactTest {
  @TempDir Path temp;

  static Stream<Arguments> shapes() {
    return Stream.of(
        Arguments.of("variable", 20_000, false, KeyMode.FULL, 0),
        Arguments.of("fixed", 20_000, true, KeyMode.FULL, 0),
        Arguments.of("signature", 20_000, false, KeyMode.signature(20), 0),
        Arguments.of("none", 20_000, true, KeyMode.NONE, 0),
        Arguments.of("sparse", 20_000, false, KeyMode.FULL, 4096),
        Arguments.of("empty", 0, false, KeyMode.FULL, 0),
        Arguments.of("one", 1, false, KeyMode.FULL, 0),
        Arguments.of("one-fixed", 1, true, KeyMode.FULL, 0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shapes")
  void anArtifactAnswersAsItsDirectory(String name, int n, boolean fixed, KeyMode mode, int sparse) throws IOException {
    long seed = new SplittableRandom().nextLong();
    System.out.println("StoreArtifactTest " + name + " seed=" + seed);
    Map<ByteBuffer, byte[]> records = fixed ? TestRecords.fixed(n, seed, 12, 20) : TestRecords.variable(n, seed, 40, 300);
    Path dir = temp.resolve(name);
    try (StoreBuilder builder = StoreBuilder.create(dir).keyMode(mode)) {
      if (sparse > 0) {
        builder.sparseIndex(sparse);
      }
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    Path artifact = temp.resolve(name + ".varve");
    long size = StoreArtifacts.pack(dir, artifact);
    assertEquals(Files.size(artifact), size);
    assertThrows(FileAlreadyExistsException.class, () -> StoreArtifacts.pack(dir, artifact));
    checkLayout(artifact);
    Path streamed = temp.resolve(name + "-streamed.varve");
    try (OutputStream out = Files.newOutputStream(streamed)) {
      StoreArtifacts.write(dir, out);
    }
    checkLayout(streamed);

    SplittableRandom random = TestRecords.seeded("StoreArtifactTest", seed);
    byte[][] absent = new byte[1000][];
    for (int i = 0; i < absent.length; i++) {
      absent[i] = TestRecords.bytes(random, 1 + random.nextInt(40));
    }
    try (Store expected = Store.open(dir)) {
      for (Store actual :
          new Store[] {
            Store.open(artifact),
            Store.load(artifact),
            Store.open(streamed),
            StoreOpener.open(artifact, true, DataAccess.MAPPED, (region, a) -> BufferMemory.open(region, a, 12)),
            StoreOpener.open(artifact, true, DataAccess.LOADED, (region, a) -> BufferMemory.open(region, a, 12))
          }) {
        try (actual) {
          assertTrue(actual.isArtifact());
          assertEquals(expected.size(), actual.size());
          assertEquals(expected.meta().toString(), actual.meta().toString());
          for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
            byte[] key = e.getKey().array();
            assertArrayEquals(e.getValue(), actual.get(key));
            assertEquals(expected.indexOf(key), actual.indexOf(key));
          }
          for (byte[] key : absent) {
            assertEquals(expected.indexOf(key), actual.indexOf(key));
            assertArrayEquals(expected.get(key), actual.get(key));
          }
          actual.verify();
          assertEquals(expected.stats().fileBytes(), actual.stats().fileBytes());
        }
      }
    }
  }

  /** A sharded root whose shards are artifacts ({@code shard-00000.varve}, ...) opens as with directories. */
  @Test
  void shardsMayBeArtifacts() throws IOException {
    long seed = new SplittableRandom().nextLong();
    Map<ByteBuffer, byte[]> records = TestRecords.variable(5_000, seed, 20, 50);
    System.out.println("StoreArtifactTest shards seed=" + seed);
    Path root = temp.resolve("sharded");
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, 4)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    for (int i = 0; i < 4; i++) {
      Path shard = root.resolve(ShardManifest.shardName(i));
      StoreArtifacts.pack(shard, root.resolve(ShardManifest.shardName(i) + StoreArtifact.SUFFIX));
      try (Stream<Path> files = Files.walk(shard)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    try (ShardedStore store = ShardedStore.open(root)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
      }
    }
    Files.delete(root.resolve(ShardManifest.shardName(2) + StoreArtifact.SUFFIX));
    var e = assertThrows(io.varve.core.format.CorruptStoreException.class, () -> ShardedStore.open(root));
    assertTrue(e.getMessage().contains("is missing"), e.getMessage());
  }

  /** The builder writes shards as artifacts, in one build or one task at a time (buildShardArtifact). */
  @Test
  void theBuilderWritesShardsAsArtifacts() throws IOException {
    long seed = new SplittableRandom().nextLong();
    Map<ByteBuffer, byte[]> records = TestRecords.variable(5_000, seed, 20, 50);
    System.out.println("StoreArtifactTest built shards seed=" + seed);
    Path root = temp.resolve("sharded");
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, 3).shardsAsArtifacts()) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    try (Stream<Path> files = Files.list(root)) {
      assertEquals(List.of("_MANIFEST", "shard-00000.varve", "shard-00001.varve", "shard-00002.varve"),
          files.map(p -> p.getFileName().toString()).sorted().toList());
    }
    ShardRouter router = ShardRouter.of(0, 3);
    Path tasks = Files.createDirectories(temp.resolve("tasks"));
    List<ShardManifest.Shard> entries = new java.util.ArrayList<>();
    for (int shard = 0; shard < 3; shard++) {
      int s = shard;
      var mine = records.entrySet().stream().filter(e -> router.shardOf(e.getKey().array()) == s)
          .map(e -> Map.entry(e.getKey().array(), e.getValue())).iterator();
      entries.add(ShardedStoreBuilder.buildShardArtifact(tasks.resolve(ShardManifest.shardName(shard) + ".varve"), router, shard,
          BuildOptions.DEFAULTS, DuplicatePolicy.FAIL, mine));
    }
    new ShardManifest(0, KeyMode.FULL, 0, entries).write(tasks.resolve(ShardManifest.FILE_NAME));
    for (Path opened : new Path[] {root, tasks}) {
      try (ShardedStore store = ShardedStore.open(opened)) {
        assertEquals(records.size(), store.size());
        for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
          assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
        }
        store.verify();
      }
    }
    try (Stream<Path> files = Files.list(tasks)) {
      assertEquals(4, files.count(), "no staging left beside the task's artifacts");
    }
  }

  @Test
  void anArtifactOpensWithoutItsIndex() throws IOException {
    Path dir = temp.resolve("s");
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      builder.put(new byte[] {1}, new byte[] {2});
      builder.build();
    }
    Path artifact = temp.resolve("s.varve");
    StoreArtifacts.pack(dir, artifact);
    try (Store store = Store.openWithoutIndex(artifact)) {
      assertArrayEquals(new byte[] {2}, store.get(new byte[] {1}));
      store.verify();
    }
  }

  @Test
  void theSameStorePacksToTheSameBytes() throws IOException {
    Path dir = temp.resolve("s");
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      builder.put(new byte[] {1}, new byte[] {2});
      builder.build();
    }
    StoreArtifacts.pack(dir, temp.resolve("a.varve"));
    StoreArtifacts.pack(dir, temp.resolve("b.varve"));
    assertArrayEquals(Files.readAllBytes(temp.resolve("a.varve")), Files.readAllBytes(temp.resolve("b.varve")));
    try (Stream<Path> left = Files.list(temp)) {
      assertEquals(0, left.filter(p -> p.getFileName().toString().contains("staging")).count(), "no staging left");
    }
  }

  /** Every entry STORED and aligned, the marker first, the store's files after it. */
  private static void checkLayout(Path artifact) throws IOException {
    try (FileChannel channel = FileChannel.open(artifact)) {
      var entries = ZipDirectory.read(channel, artifact.toString(), 100).entries();
      assertEquals(StoreArtifact.MARKER, entries.get(0).name());
      for (ZipDirectory.Entry entry : entries) {
        assertEquals(0, entry.dataOffset() % StoreArtifact.ALIGNMENT, entry.name());
      }
    }
    // The JDK's own ZIP reader agrees: every entry STORED, with its CRC.
    try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(artifact.toFile())) {
      zip.stream().forEach(e -> assertEquals(java.util.zip.ZipEntry.STORED, e.getMethod(), e.getName()));
    }
  }
}
