package io.varve.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.ShardedStoreBuilder;
import io.varve.core.files.FileTrees;
import io.varve.core.shard.ShardManifest;
import io.varve.core.store.StoreRoot;
import io.varve.core.testing.TestRecords;
import io.varve.reader.ShardedStore;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A source that changes while {@link ShardedStoreFetcher} copies it, through {@link
 * FlakyFileSystem}'s hook on {@code open}, which runs after the fetch listed the file: a file
 * replaced by one of another build of the same length, truncated, grown, removed, or the whole
 * store replaced by a newer build between two shards. Each fetch fails, naming what changed where
 * it can, publishes nothing and leaves no staging directory; the next fetch of the settled source
 * publishes a version that verifies.
 */
class SourceChangedDuringFetchTest {
  private static final long SEED = 0x50C4A6EL;
  private static final int SHARDS = 3;

  @TempDir Path temp;
  private final Configuration conf = new Configuration();
  private Map<ByteBuffer, byte[]> records;
  private Path rootDirectory;

  @BeforeEach
  void setUp() {
    Assumptions.assumeTrue(SparkTestSessions.sparkStarts(), "Hadoop 3.4.1's client cannot start on JDK " + Runtime.version());
    System.out.println("SourceChangedDuringFetchTest seed=" + SEED);
    records = TestRecords.variable(3_000, SEED, 24, 40);
    rootDirectory = temp.resolve("serving");
    conf.set("fs.flaky.impl", FlakyFileSystem.class.getName());
    conf.setBoolean("fs.flaky.impl.disable.cache", true);
    FlakyFileSystem.reset();
  }

  @AfterEach
  void tearDown() {
    FlakyFileSystem.reset();
  }

  /** Builds the records, each value prefixed by {@code tag} (so two builds' files have the same lengths), at {@code name}. */
  private Path build(String name, boolean artifacts, byte tag) throws IOException {
    Path source = temp.resolve(name);
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(source, SHARDS)) {
      if (artifacts) {
        builder.shardsAsArtifacts();
      }
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        byte[] value = new byte[e.getValue().length + 1];
        value[0] = tag;
        System.arraycopy(e.getValue(), 0, value, 1, e.getValue().length);
        builder.put(e.getKey().array(), value);
      }
      builder.build();
    }
    return source;
  }

  @ParameterizedTest
  @CsvSource({
    "replaced-same-length,false,shard-00001/data,file data has checksum",
    "replaced-same-length,true,shard-00001.varve,shard 1 of 3 (shard-00001)",
    "truncated,false,shard-00002/data,was listed with",
    "truncated,true,shard-00000.varve,was listed with",
    "grown,false,shard-00001/data,but more could be read",
    "grown,true,shard-00002.varve,but more could be read",
    "removed,false,shard-00001/meta,shard-00001",
    "newer-build,false,shard-00001/meta,shard 1 of 3 (shard-00001): the meta file is damaged or not the manifest's",
    "newer-build,true,shard-00002.varve,shard 2 of 3 (shard-00002): the meta file is damaged or not the manifest's",
  })
  void aSourceChangedUnderTheFetchPublishesNothing(String change, boolean artifacts, String file, String message) throws IOException {
    Path source = build("job", artifacts, (byte) 1);
    Path newer = build("newer", artifacts, (byte) 2);
    Path changed = source.resolve(file);
    assertTrue(Files.exists(changed), changed + " to change");
    FlakyFileSystem.before = (operation, path, attempt) -> {
      if (!operation.equals("open") || !path.toUri().getPath().equals(changed.toString())) {
        return;
      }
      FlakyFileSystem.before = (o, p, a) -> {}; // once
      switch (change) {
        case "replaced-same-length" -> {
          Path other = newer.resolve(file);
          assertEquals(Files.size(other), Files.size(changed), "another build's file of the same length");
          Files.copy(other, changed, StandardCopyOption.REPLACE_EXISTING);
        }
        case "truncated" -> resize(changed, -100);
        case "grown" -> resize(changed, 100);
        case "removed" -> FileTrees.deleteTree(changed.getParent());
        case "newer-build" -> replaceWith(source, newer);
        default -> throw new AssertionError(change);
      }
    };
    URI flaky = URI.create("flaky://" + source.toUri().getPath());
    Exception e = assertThrows(Exception.class, () -> ShardedStoreFetcher.fetch(flaky, conf, rootDirectory));
    System.out.println("SourceChangedDuringFetchTest " + change + ": " + e);
    assertTrue(e.toString().contains(message), "expected '" + message + "' in: " + e);
    StoreRoot root = StoreRoot.open(rootDirectory);
    assertTrue(root.current().isEmpty(), "CURRENT written");
    assertEquals(List.of(), root.versions());
    assertNoStaging();

    // Settled (the newer build in place where the change made a mix), the source fetches whole.
    if (!change.equals("newer-build")) {
      replaceWith(source, newer);
    }
    String version = ShardedStoreFetcher.fetch(flaky, conf, rootDirectory);
    try (ShardedStore store = ShardedStore.open(root.path(version))) {
      store.verify();
      assertEquals(records.size(), store.size());
      byte[] key = records.keySet().iterator().next().array();
      assertEquals(2, store.get(key)[0], "the newer build's values");
    }
    assertNoStaging();
  }

  private static void resize(Path file, long by) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      if (by < 0) {
        channel.truncate(channel.size() + by);
      } else {
        channel.write(ByteBuffer.allocate((int) by), channel.size());
      }
    }
  }

  /** Replaces the store at {@code source} by a copy of {@code newer}, manifest last, as a publisher would. */
  private static void replaceWith(Path source, Path newer) throws IOException {
    FileTrees.deleteTree(source);
    Files.createDirectories(source);
    try (Stream<Path> entries = Files.list(newer)) {
      for (Path entry : (Iterable<Path>) entries::iterator) {
        if (!entry.getFileName().toString().equals(ShardManifest.FILE_NAME)) {
          FileTrees.copyTree(entry, source.resolve(entry.getFileName().toString()));
        }
      }
    }
    Files.copy(newer.resolve(ShardManifest.FILE_NAME), source.resolve(ShardManifest.FILE_NAME));
  }

  private void assertNoStaging() throws IOException {
    try (Stream<Path> entries = Files.list(rootDirectory)) {
      assertEquals(List.of(), entries.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".fetch-")).toList());
    }
  }
}
