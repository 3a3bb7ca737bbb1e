package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.MergeSummary;
import io.varve.builder.StoreArtifacts;
import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreMerger;
import io.varve.builder.StoreReindexer;
import io.varve.core.artifact.StoreArtifact;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import io.varve.core.store.KeyMode;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreMeta;
import io.varve.core.testing.FileDamage;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link StoreMerger} and {@link StoreReindexer} read an old store packed as a one-file artifact in
 * place: the store they make is the one they make from its directory (same data file, same answers
 * as a {@code HashMap} model), and a damaged artifact fails them naming its entry, publishing nothing.
 */
class ArtifactBaseTest {
  private static final long BUDGET = StoreBuilder.MIN_MEMORY_BUDGET;

  @TempDir Path temp;

  /** The kinds of old store, each read through other files: offsets, none, blocks, hashes, pages. */
  enum Shape {
    VARIABLE(false, KeyMode.FULL, 0, false),
    FIXED(true, KeyMode.FULL, 0, false),
    SPARSE(false, KeyMode.FULL, 4096, false),
    SIGNATURE(false, KeyMode.signature(32), 0, false),
    PAGED(false, KeyMode.FULL, 0, true);

    final boolean fixed;
    final KeyMode keyMode;
    final int blockBytes;
    /** Pages (the default for variable sizes and full keys), or a blocked index and offsets. */
    final boolean paged;

    Shape(boolean fixed, KeyMode keyMode, int blockBytes, boolean paged) {
      this.fixed = fixed;
      this.keyMode = keyMode;
      this.blockBytes = blockBytes;
      this.paged = paged;
    }

    Map<ByteBuffer, byte[]> records(int n, long seed) {
      return fixed ? TestRecords.fixed(n, seed, 12, 20) : TestRecords.variable(n, seed, 30, 200);
    }
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void aMergeIntoAnArtifactMakesTheStoreItsDirectoryMakes(Shape shape) throws IOException {
    long seed = 0xA27_1FAC7L + shape.ordinal();
    SplittableRandom random = TestRecords.seeded("ArtifactBaseTest merge " + shape, seed);
    Map<ByteBuffer, byte[]> model = new HashMap<>(shape.records(8_000, random.nextLong()));
    Path directory = build("base", model, shape);
    Path artifact = pack(directory);

    Map<ByteBuffer, byte[]> batch = batch(random, model, shape, 3_000);
    MergeSummary fromDirectory = merge(temp.resolve("from-directory"), batch, directory);
    MergeSummary fromArtifact = merge(temp.resolve("from-artifact"), batch, artifact);
    applyTo(model, batch);

    assertEquals(fromDirectory.inserted(), fromArtifact.inserted());
    assertEquals(fromDirectory.replaced(), fromArtifact.replaced());
    assertEquals(fromDirectory.deleted(), fromArtifact.deleted());
    assertTrue(fromArtifact.inserted() > 0 && fromArtifact.replaced() > 0 && fromArtifact.deleted() > 0, "the batch inserts, replaces and deletes");
    assertEquals(model.size(), fromArtifact.meta().recordCount());
    assertSameData(temp.resolve("from-directory"), temp.resolve("from-artifact"));
    checkStore(temp.resolve("from-artifact"), model, shape, seed);
    assertNoLeftovers();
  }

  @Test
  void severalBasesMixArtifactsAndDirectories() throws IOException {
    long seed = 0x5E7E_2A1L;
    SplittableRandom random = TestRecords.seeded("ArtifactBaseTest several bases", seed);
    List<byte[]> pool = TestRecords.variable(4_000, random.nextLong(), 20, 0).keySet().stream().map(ByteBuffer::array).toList();
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    List<Path> directories = new ArrayList<>();
    List<Path> mixed = new ArrayList<>();
    for (int s = 0; s < 4; s++) {
      Map<ByteBuffer, byte[]> records = new LinkedHashMap<>();
      for (int i = 0; i < 2_000; i++) {
        records.put(TestRecords.key(pool.get(random.nextInt(pool.size()))), TestRecords.upTo(random, 50));
      }
      model.putAll(records);
      Path directory = build("part-" + s, records, Shape.VARIABLE);
      directories.add(directory);
      // Artifacts first and third, directories second and fourth: the order of precedence holds across both.
      mixed.add(s % 2 == 0 ? pack(directory) : directory);
    }
    Map<ByteBuffer, byte[]> batch = batch(random, model, Shape.VARIABLE, 1_000);
    MergeSummary allDirectories = merge(temp.resolve("directories"), batch, directories.toArray(new Path[0]));
    MergeSummary someArtifacts = merge(temp.resolve("mixed"), batch, mixed.toArray(new Path[0]));
    applyTo(model, batch);
    assertEquals(allDirectories.superseded(), someArtifacts.superseded());
    assertTrue(someArtifacts.superseded() > 0, "newer bases replace records of older ones");
    assertSameData(temp.resolve("directories"), temp.resolve("mixed"));
    checkStore(temp.resolve("mixed"), model, Shape.VARIABLE, seed);
    assertNoLeftovers();
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void aReindexOfAnArtifactMakesTheStoreItsDirectoryMakes(Shape shape) throws IOException {
    long seed = 0x2E1_DE7L + shape.ordinal();
    SplittableRandom random = TestRecords.seeded("ArtifactBaseTest reindex " + shape, seed);
    Map<ByteBuffer, byte[]> model = shape.records(6_000, random.nextLong());
    Path directory = build("base", model, shape);
    Path artifact = pack(directory);
    // Sparse stores become dense; the others sparse where they keep keys, else dense again.
    int blockBytes = shape.blockBytes == 0 && shape.keyMode.keepsKeys() ? 4096 : StoreReindexer.DENSE;
    StoreMeta fromDirectory = StoreReindexer.reindex(directory, temp.resolve("from-directory"), blockBytes, null);
    StoreMeta fromArtifact = StoreReindexer.reindex(artifact, temp.resolve("from-artifact"), blockBytes, null);
    assertEquals(fromDirectory.files(), fromArtifact.files());
    assertEquals(blockBytes != StoreReindexer.DENSE, fromArtifact.isSparse());
    assertSameData(temp.resolve("from-directory"), temp.resolve("from-artifact"));
    checkStore(temp.resolve("from-artifact"), model, shape, seed);
    try (Store source = Store.open(artifact)) {
      source.verify(); // read, not changed
    }
    assertNoLeftovers();
  }

  /** One way to damage an artifact, and the entry a merge of it must name. */
  enum Damage {
    FLIPPED_DATA_BYTE("!/data"),
    FLIPPED_OFFSETS_BYTE("!/offsets"),
    TRUNCATED(""),
    META_LISTS_ANOTHER_DATA_SIZE("!/data");

    final String names;

    Damage(String names) {
      this.names = names;
    }
  }

  @ParameterizedTest
  @EnumSource(Damage.class)
  void aDamagedArtifactFailsTheMergeNamingItAndPublishesNothing(Damage damage) throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.variable(3_000, 0xDA3A6E7L, 20, 60);
    Path artifact = pack(build("base", records, Shape.VARIABLE));
    damage(artifact, damage);
    Path target = temp.resolve("merged");
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> merge(target, Map.of(TestRecords.key(new byte[] {9}), new byte[] {9}), artifact));
    assertTrue(e.getMessage().startsWith(artifact + damage.names), e.getMessage());
    assertFalse(Files.exists(target));
    assertNoLeftovers();

    if (damage != Damage.TRUNCATED) {
      Path reindexed = temp.resolve("reindexed");
      e = assertThrows(CorruptStoreException.class, () -> StoreReindexer.reindex(artifact, reindexed, 4096, null));
      assertTrue(e.getMessage().startsWith(artifact + damage.names), e.getMessage());
      assertFalse(Files.exists(reindexed));
      assertNoLeftovers();
    }
  }

  @Test
  void aFileThatIsNoArtifactIsRefusedAsOne() throws IOException {
    Path text = Files.writeString(temp.resolve("notes.varve"), "not a store\n");
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> StoreMerger.create(temp.resolve("merged")).base(text));
    assertTrue(e.getMessage().startsWith(text.toString()), e.getMessage());
    assertThrows(CorruptStoreException.class, () -> StoreReindexer.reindex(text, temp.resolve("reindexed"), 4096, null));
    assertFalse(Files.exists(temp.resolve("merged")) || Files.exists(temp.resolve("reindexed")));
    assertNoLeftovers();
  }

  private static void damage(Path artifact, Damage damage) throws IOException {
    StoreArtifact opened = StoreArtifact.open(artifact);
    switch (damage) {
      case FLIPPED_DATA_BYTE -> {
        FileRegion data = opened.region(StoreFile.DATA.fileName());
        FileDamage.flipBits(artifact, data.offset() + StoreFile.DATA_PAYLOAD_OFFSET + data.length() / 2, 0x08);
      }
      case FLIPPED_OFFSETS_BYTE -> {
        FileRegion offsets = opened.region(StoreFile.OFFSETS.fileName());
        FileDamage.flipBits(artifact, offsets.offset() + offsets.length() / 2, 0x01);
      }
      case TRUNCATED -> {
        try (FileChannel channel = FileChannel.open(artifact, StandardOpenOption.WRITE)) {
          channel.truncate(channel.size() - 100);
        }
      }
      case META_LISTS_ANOTHER_DATA_SIZE -> {
        // A valid meta (its own checksum right) that lists the data 4 KiB longer than the entry is.
        FileRegion region = opened.region(StoreFile.META.fileName());
        StoreMeta meta = StoreMeta.read(region);
        List<StoreMeta.FileEntry> files = meta.files().stream()
            .map(f -> f.name().equals(StoreFile.DATA.fileName()) ? new StoreMeta.FileEntry(f.name(), f.size() + 4096, f.checksum()) : f)
            .toList();
        Path lying = artifact.resolveSibling("lying-meta");
        meta.withFiles(meta.indexParameters(), meta.dataBytes(), 0, files).write(lying);
        byte[] bytes = Files.readAllBytes(lying);
        Files.delete(lying);
        assertEquals(region.length(), bytes.length, "the lying meta fits in the meta entry");
        try (FileChannel channel = FileChannel.open(artifact, StandardOpenOption.WRITE)) {
          channel.write(ByteBuffer.wrap(bytes), region.offset());
        }
      }
    }
  }

  /**
   * A batch over the model's keys and new ones: replacements, inserts, deletes of present and of
   * absent keys (null values); for a fixed-size store, values of the store's size.
   */
  private static Map<ByteBuffer, byte[]> batch(SplittableRandom random, Map<ByteBuffer, byte[]> model, Shape shape, int n) {
    List<ByteBuffer> present = new ArrayList<>(model.keySet());
    Map<ByteBuffer, byte[]> batch = new LinkedHashMap<>();
    while (batch.size() < n) {
      int kind = random.nextInt(4);
      ByteBuffer key = kind < 2 ? present.get(random.nextInt(present.size()))
          : TestRecords.key(shape.fixed ? TestRecords.bytes(random, 12) : TestRecords.upTo(random, 30));
      boolean delete = kind == 1 || kind == 3 && random.nextInt(4) == 0;
      batch.put(key, delete ? null : shape.fixed ? TestRecords.bytes(random, 20) : TestRecords.upTo(random, 200));
    }
    return batch;
  }

  private static void applyTo(Map<ByteBuffer, byte[]> model, Map<ByteBuffer, byte[]> batch) {
    batch.forEach((key, value) -> {
      if (value == null) {
        model.remove(key);
      } else {
        model.put(key, value);
      }
    });
  }

  private MergeSummary merge(Path target, Map<ByteBuffer, byte[]> batch, Path... bases) throws IOException {
    // One salt for every merge, whose data files the tests compare byte for byte.
    try (StoreMerger merger = StoreMerger.create(target).memoryBudget(BUDGET).recordCheckSalt(0xA57L)) {
      for (Path base : bases) {
        merger.base(base);
      }
      for (Map.Entry<ByteBuffer, byte[]> op : batch.entrySet()) {
        if (op.getValue() == null) {
          merger.delete(op.getKey().array());
        } else {
          merger.put(op.getKey().array(), op.getValue());
        }
      }
      return merger.merge();
    }
  }

  /** The store answers as the model: every key its value, absent keys absent (where keys are kept). */
  private static void checkStore(Path dir, Map<ByteBuffer, byte[]> model, Shape shape, long seed) throws IOException {
    try (Store store = Store.open(dir)) {
      store.verify();
      if (shape.keyMode.keepsKeys()) {
        StoreRoundTripTest.checkAgainst(store, model, seed, 500);
        return;
      }
      assertEquals(model.size(), store.size());
      for (Map.Entry<ByteBuffer, byte[]> e : model.entrySet()) {
        assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
      }
      SplittableRandom absent = new SplittableRandom(seed);
      int found = 0;
      for (int i = 0; i < 2_000; i++) {
        byte[] key = TestRecords.upTo(absent, 40);
        if (!model.containsKey(TestRecords.key(key)) && store.get(key) != null) {
          found++;
        }
      }
      assertTrue(found <= 1, found + " of 2,000 absent keys found with 32-bit signatures");
    }
  }

  private Path build(String name, Map<ByteBuffer, byte[]> records, Shape shape) throws IOException {
    Path dir = temp.resolve(name);
    try (StoreBuilder builder = StoreBuilder.create(dir).memoryBudget(BUDGET).keyMode(shape.keyMode)) {
      if (shape.blockBytes > 0) {
        builder.sparseIndex(shape.blockBytes);
      } else if (!shape.paged) {
        builder.indexParameters(StoreBuilder.DEFAULT_INDEX);
      }
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    return dir;
  }

  private static Path pack(Path directory) throws IOException {
    Path artifact = directory.resolveSibling(directory.getFileName() + StoreArtifact.SUFFIX);
    StoreArtifacts.pack(directory, artifact);
    return artifact;
  }

  private static void assertSameData(Path expected, Path actual) throws IOException {
    Path data = Path.of(StoreFile.DATA.fileName());
    assertEquals(-1, Files.mismatch(expected.resolve(data), actual.resolve(data)), actual + "'s data differs from " + expected + "'s");
  }

  /** No staging or temporary directory is left beside the stores. */
  private void assertNoLeftovers() throws IOException {
    try (Stream<Path> files = Files.list(temp)) {
      assertEquals(List.of(), files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".")).toList());
    }
  }
}
