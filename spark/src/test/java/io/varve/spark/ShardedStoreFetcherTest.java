package io.varve.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.ShardedStoreBuilder;
import io.varve.core.artifact.StoreArtifact;
import io.varve.core.files.ExclusiveUse;
import io.varve.core.files.FileTrees;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.shard.ShardManifest;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreRoot;
import io.varve.core.testing.DelegatingChannel;
import io.varve.reader.FollowingShardedStore;
import io.varve.reader.ShardedStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ShardedStoreFetcher} through Hadoop's local file system ({@code file:}): a sharded store
 * built by {@link ShardedStoreBuilder} from random records (a {@link HashMap} the reference) is
 * fetched into a {@link StoreRoot} and read back; a source with a missing, truncated or damaged
 * shard, or no manifest, fails naming it and leaves the root as it was.
 */
class ShardedStoreFetcherTest {
  private static final long SEED = 0xFE7C4EL;
  private static final int SHARDS = 4;

  @TempDir Path temp;
  private final Configuration conf = new Configuration();
  private Map<ByteBuffer, byte[]> records;
  private Path rootDirectory;

  @BeforeEach
  void records() {
    Assumptions.assumeTrue(SparkTestSessions.sparkStarts(), "Hadoop 3.4.1's client calls Subject.getSubject, which JDK "
        + Runtime.version() + " no longer supports (HADOOP-19212): fetcher tests skipped");
    System.out.println("ShardedStoreFetcherTest seed=" + SEED);
    SplittableRandom random = new SplittableRandom(SEED);
    records = new HashMap<>();
    while (records.size() < 5_000) {
      records.put(ByteBuffer.wrap(bytes(random, 1 + random.nextInt(24))), bytes(random, random.nextInt(60)));
    }
    rootDirectory = temp.resolve("serving");
  }

  private static byte[] bytes(SplittableRandom random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  /** Builds the records (values prefixed by {@code tag}) as a sharded store at {@code name}. */
  private Path build(String name, boolean artifacts, byte tag) throws IOException {
    Path source = temp.resolve(name);
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(source, SHARDS)) {
      if (artifacts) {
        builder.shardsAsArtifacts();
      }
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), tagged(tag, e.getValue()));
      }
      builder.build();
    }
    return source;
  }

  private static byte[] tagged(byte tag, byte[] value) {
    byte[] bytes = new byte[value.length + 1];
    bytes[0] = tag;
    System.arraycopy(value, 0, bytes, 1, value.length);
    return bytes;
  }

  @Test
  void fetchesPublishesAndServesDirectoriesAndArtifacts() throws IOException {
    String first = ShardedStoreFetcher.fetch(build("job-1", false, (byte) 1).toUri(), conf, rootDirectory);
    assertEquals("v0000000001", first);
    StoreRoot root = StoreRoot.open(rootDirectory);
    assertEquals(first, root.current().orElseThrow());
    try (ShardedStore store = ShardedStore.open(root.path(first))) {
      store.verify();
      assertEquals(records.size(), store.size());
    }
    try (FollowingShardedStore store = FollowingShardedStore.open(rootDirectory)) {
      checkAgainstReference(store, (byte) 1);
      String second = ShardedStoreFetcher.fetch(build("job-2", true, (byte) 2).toUri(), conf, rootDirectory);
      assertEquals("v0000000002", second);
      assertTrue(Files.isRegularFile(root.path(second).resolve("shard-00000.varve")), "artifacts stay artifacts");
      assertTrue(store.refresh());
      assertEquals(second, store.version());
      checkAgainstReference(store, (byte) 2);
    }
    assertEquals(List.of("v0000000001", "v0000000002"), root.versions());
    assertNoStaging();
  }

  private void checkAgainstReference(FollowingShardedStore store, byte tag) {
    assertEquals(SHARDS, store.shardCount());
    for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
      assertArrayEquals(tagged(tag, e.getValue()), store.get(e.getKey().array()));
    }
    assertNull(store.get(new byte[25]), "keys are at most 24 bytes");
    assertFalse(store.contains(new byte[25]));
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aMissingShardIsNamedAndNothingIsPublished(boolean artifacts) throws IOException {
    Path source = build("job", artifacts, (byte) 1);
    FileTrees.deleteTree(source.resolve(artifacts ? "shard-00001.varve" : "shard-00001"));
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory));
    assertMessage(e, "shard 1 of 4 (shard-00001) is missing");
    assertNothingPublished();
  }

  @Test
  void aTruncatedShardFileIsNamedAndNothingIsPublished() throws IOException {
    Path source = build("job", false, (byte) 1);
    truncate(source.resolve("shard-00002").resolve(StoreFile.DATA.fileName()), 100);
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory));
    assertMessage(e, "shard 2 of 4 (shard-00002): file data has");
    assertMessage(e, "(truncated)");
    assertNothingPublished();
  }

  @Test
  void aTruncatedArtifactIsNamedAndNothingIsPublished() throws IOException {
    Path source = build("job", true, (byte) 1);
    truncate(source.resolve("shard-00002.varve"), 100);
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory));
    assertMessage(e, "shard 2 of 4 (shard-00002): the artifact is damaged or truncated");
    assertNothingPublished();
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aDamagedMetaIsNamedAndNothingIsPublished(boolean artifacts) throws IOException {
    Path source = build("job", artifacts, (byte) 1);
    if (artifacts) {
      Path artifact = source.resolve("shard-00003.varve");
      flipByte(artifact, StoreArtifact.open(artifact).region(StoreFile.META.fileName()).offset() + 30);
    } else {
      flipByte(source.resolve("shard-00003").resolve(StoreFile.META.fileName()), 30);
    }
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory));
    assertMessage(e, "shard 3 of 4 (shard-00003): the meta file is damaged");
    assertNothingPublished();
  }

  @Test
  void aDamagedDataByteIsFoundByTheFullChecksum() throws IOException {
    Path source = build("job", false, (byte) 1);
    Path data = source.resolve("shard-00000").resolve(StoreFile.DATA.fileName());
    flipByte(data, Files.size(data) / 2);
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory));
    assertMessage(e, "shard 0 of 4 (shard-00000): file data is damaged");
    assertNothingPublished();
  }

  /**
   * A manifest whose entries each match their shard's meta file (records, seed, size, checksum)
   * but whose list is in another order, or of another routing seed or shard count, than the
   * shards' keys were routed by. The fetch published it: every reader then refused to open the
   * version (a serving host that started next served nothing), or, where the first and last keys
   * the reader samples happened to route right, missed the keys routed elsewhere silently.
   */
  @ParameterizedTest
  @CsvSource({"shards-swapped,false", "shards-swapped,true", "another-seed,false", "another-seed,true", "fewer-shards,false"})
  void aManifestThatRoutesKeysElsewhereIsRefusedAndNothingIsPublished(String lie, boolean artifacts) throws IOException {
    Path source = build("job", artifacts, (byte) 1);
    Path file = source.resolve(ShardManifest.FILE_NAME);
    ShardManifest manifest = ShardManifest.read(file);
    List<ShardManifest.Shard> shards = new java.util.ArrayList<>(manifest.shards());
    long seed = manifest.seed();
    switch (lie) {
      case "shards-swapped" -> java.util.Collections.swap(shards, 1, 2);
      case "another-seed" -> seed++;
      case "fewer-shards" -> shards = shards.subList(0, 2);
      default -> throw new AssertionError(lie);
    }
    Files.delete(file);
    new ShardManifest(seed, manifest.keyMode(), manifest.createdMillis(), shards).write(file);
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory));
    assertMessage(e, "its keys are not routed as the manifest says");
    assertMessage(e, "holds a key routed to shard");
    assertNothingPublished();
  }

  /**
   * A source whose meta file, or artifact, is longer than the manifest's shard can be (padded here
   * by 8 MiB, more than any artifact's ZIP adds): it was copied whole, however long (a lying source could fill the local disk), and
   * only then found not to match. It is now refused from its listed length, before any copy.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aShardFileLongerThanTheManifestAllowsIsRefusedBeforeItIsCopied(boolean artifacts) throws IOException {
    Path source = build("job", artifacts, (byte) 1);
    Path file = artifacts ? source.resolve("shard-00001.varve") : source.resolve("shard-00001").resolve(StoreFile.META.fileName());
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      channel.write(ByteBuffer.allocate(8 << 20));
    }
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory));
    assertMessage(e, "shard 1 of 4 (shard-00001): " + (artifacts ? "the artifact" : "the meta file") + " has ");
    assertMessage(e, "nothing of it was copied");
    assertNothingPublished();
  }

  /**
   * A file and a dangling link named as the next versions (left by hand, or by a tool): the next
   * version was numbered after the directories only, so every fetch downloaded and checked the
   * whole store, then failed on the rename ('the version appeared during the fetch'), for good.
   */
  @Test
  void entriesOfAVersionsNameThatAreNoDirectoriesAreNumberedPast() throws IOException {
    Path source = build("job", false, (byte) 1);
    assertEquals("v0000000001", ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory));
    Files.writeString(rootDirectory.resolve("v0000000002"), "not a version");
    Files.createSymbolicLink(rootDirectory.resolve("v0000000003"), temp.resolve("nowhere"));
    assertEquals("v0000000004", ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory));
    StoreRoot root = StoreRoot.open(rootDirectory);
    assertEquals("v0000000004", root.current().orElseThrow());
    assertEquals(List.of("v0000000001", "v0000000004"), root.versions());
    assertNoStaging();
  }

  @Test
  void aSourceWithoutManifestIsAnUnfinishedBuild() throws IOException {
    Path source = build("job", false, (byte) 1);
    Files.delete(source.resolve(ShardManifest.FILE_NAME));
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory));
    assertMessage(e, ShardManifest.FILE_NAME + ": not a sharded store, or its build did not finish");
    assertNothingPublished();
  }

  @Test
  void aFailedFetchKeepsTheVersionServedAndAKilledOnesStagingIsRemoved() throws IOException {
    String first = ShardedStoreFetcher.fetch(build("good", false, (byte) 1).toUri(), conf, rootDirectory);
    Path bad = build("bad", false, (byte) 2);
    truncate(bad.resolve("shard-00003").resolve(StoreFile.META.fileName()), 1);
    assertThrows(CorruptStoreException.class, () -> ShardedStoreFetcher.fetch(bad.toUri(), conf, rootDirectory));
    StoreRoot root = StoreRoot.open(rootDirectory);
    assertEquals(first, root.current().orElseThrow());
    assertEquals(List.of(first), root.versions());
    Files.createDirectories(rootDirectory.resolve(".fetch-123456").resolve("shard-00000"));   // as a killed fetch leaves it
    assertEquals("v0000000002", ShardedStoreFetcher.fetch(build("good-2", false, (byte) 3).toUri(), conf, rootDirectory));
    assertNoStaging();
  }

  /** A failed fsync of a directory used to be swallowed: the fetch published a version whose name a power loss could undo. */
  @ParameterizedTest
  @ValueSource(strings = {".fetch-", "serving"})
  void aFailedForceOfADirectoryFailsTheFetchAndPublishesNothing(String failingName) throws IOException {
    Path source = build("job", false, (byte) 1);
    StoreRoot.open(rootDirectory);
    ShardedStoreFetcher.directoryOpener =
        (path, options) ->
            new DelegatingChannel(FileChannel.open(path, options)) {
              @Override
              public void force(boolean metaData) throws IOException {
                if (path.getFileName().toString().startsWith(failingName)) {
                  throw new IOException("Input/output error (injected)");
                }
                real.force(metaData);
              }
            };
    try {
      IOException e = assertThrows(IOException.class, () -> ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory));
      assertMessage(e, "injected");
    } finally {
      ShardedStoreFetcher.directoryOpener = FileChannel::open;
    }
    assertNothingPublished();
  }

  /**
   * StoreRoot.publish renames CURRENT, then forces the root; when only that fails, CURRENT names
   * the new version: the fetch must fail saying so and keep the version. It used to delete the
   * version CURRENT named, so that a serving host that started next found no store.
   */
  @Test
  void aFailedForceAfterCurrentWasRenamedKeepsTheVersionItNames() throws Exception {
    Path source = build("job", false, (byte) 1);
    StoreRoot root = StoreRoot.open(rootDirectory);
    java.lang.reflect.Field opener = StoreRoot.class.getDeclaredField("directoryOpener");
    opener.setAccessible(true);
    Object real = opener.get(null);
    opener.set(null, (io.varve.core.files.DirectoryEntries.Opener) (path, options) ->
        new DelegatingChannel(FileChannel.open(path, options)) {
          @Override
          public void force(boolean metaData) throws IOException {
            throw new IOException("Input/output error (injected)");
          }
        });
    try {
      IOException e = assertThrows(IOException.class, () -> ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory));
      assertMessage(e, "may not survive a power loss");
    } finally {
      opener.set(null, real);
    }
    String current = root.current().orElseThrow();
    assertEquals(List.of(current), root.versions());
    try (ShardedStore store = ShardedStore.open(root.path(current))) {
      store.verify();
      assertEquals(records.size(), store.size());
    }
    assertNoStaging();
  }

  /**
   * A fetch waits while the root's lock file is held by other code of this JVM (here the test,
   * standing for a copy of the fetcher in another class loader, which used to make the fetch fail
   * with an OverlappingFileLockException and drop the holder's lock), and an interrupt ends the
   * wait with nothing published.
   */
  @Test
  void aFetchWaitsForTheHolderOfTheRootsLockAndCanBeInterrupted() throws Exception {
    Path source = build("job", false, (byte) 1);
    StoreRoot.open(rootDirectory);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      Future<String> fetch;
      try (ExclusiveUse held = ExclusiveUse.acquire(rootDirectory.resolve(".fetch.lock"), true, "a test")) {
        Future<String> interrupted = thread.submit(() -> ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory));
        Thread.sleep(200);
        assertFalse(interrupted.isDone(), "the fetch waits for its turn");
        thread.shutdownNow();
        ExecutionException e =
            assertThrows(ExecutionException.class, () -> interrupted.get(10, TimeUnit.SECONDS));
        assertEquals(InterruptedIOException.class, e.getCause().getClass());
        assertNothingPublished();
        thread = Executors.newSingleThreadExecutor();
        fetch = thread.submit(() -> ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory));
        Thread.sleep(200);
        assertFalse(fetch.isDone(), "the fetch waits for its turn");
      }
      assertEquals("v0000000001", fetch.get(60, TimeUnit.SECONDS));
    } finally {
      thread.shutdownNow();
    }
  }

  @Test
  void fetchesIntoOneRootTakeTurns() throws Exception {
    Path source = build("job", true, (byte) 1);
    List<java.util.concurrent.Future<String>> fetches = new java.util.ArrayList<>();
    java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(3);
    try {
      for (int i = 0; i < 3; i++) {
        fetches.add(threads.submit(() -> ShardedStoreFetcher.fetch(source.toUri(), conf, rootDirectory)));
      }
      java.util.Set<String> names = new java.util.TreeSet<>();
      for (java.util.concurrent.Future<String> fetch : fetches) {
        names.add(fetch.get());
      }
      assertEquals(java.util.Set.of("v0000000001", "v0000000002", "v0000000003"), names);
    } finally {
      threads.shutdown();
    }
    StoreRoot root = StoreRoot.open(rootDirectory);
    assertEquals(List.of("v0000000001", "v0000000002", "v0000000003"), root.versions());
    try (ShardedStore store = ShardedStore.open(root.path(root.current().orElseThrow()))) {
      store.verify();
    }
    assertNoStaging();
  }

  private static void assertMessage(Exception e, String part) {
    assertTrue(e.getMessage().contains(part), "expected '" + part + "' in: " + e.getMessage());
  }

  private void assertNothingPublished() throws IOException {
    StoreRoot root = StoreRoot.open(rootDirectory);
    assertTrue(root.current().isEmpty(), "CURRENT written");
    assertEquals(List.of(), root.versions());
    assertNoStaging();
  }

  private void assertNoStaging() throws IOException {
    try (Stream<Path> entries = Files.list(rootDirectory)) {
      List<String> left = entries.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".fetch-")).toList();
      assertEquals(List.of(), left, "staging left in the root");
    }
  }

  private static void truncate(Path file, long bytes) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(channel.size() - bytes);
    }
  }

  private static void flipByte(Path file, long position) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      channel.read(one, position);
      one.put(0, (byte) (one.get(0) ^ 0x10)).rewind();
      channel.write(one, position);
    }
  }
}
