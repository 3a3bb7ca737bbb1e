package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.ShardedStoreBuilder;
import io.varve.core.store.StoreRoot;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of a {@link StoreRoot#delete} midway ({@link KilledDeleteChild}, a JVM of its
 * own), once a quarter of the version's files are gone. The version was deleted in place, its
 * manifest after its shards ({@code _MANIFEST} sorts before {@code shard-*}): the killed deletion
 * left a version whose shards were gone or cut and whose manifest was there, which {@link
 * StoreRoot#rollback} published and no reader could open. Now the root lists no such version, and
 * the next deletion removes what the killed one left. The version holds extra files in its last
 * shard, so that the deletion lasts long enough to be caught in the middle.
 */
class KilledDeleteTest {
  private static final long SEED = 0x0DE1E7EL;
  private static final int EXTRA_FILES = 10_000;

  @TempDir Path temp;

  @Test
  void aDeletionKilledMidwayLeavesNoVersionThatIsPublished() throws Exception {
    System.out.println("KilledDeleteTest seed " + Long.toHexString(SEED));
    Map<ByteBuffer, byte[]> records = TestRecords.variable(2_000, SEED, 16, 16);
    StoreRoot root = StoreRoot.open(temp.resolve("root"));
    String doomed = build(root, records);
    Path lastShard = root.path(doomed).resolve("shard-00000");
    for (int i = 0; i < EXTRA_FILES; i++) {
      Files.createFile(lastShard.resolve(String.format("extra-%05d", i)));
    }
    String second = build(root, records);
    root.publish(second);

    Process child = ChildJvm.start(KilledDeleteChild.class, temp.resolve("child.log"), root.directory().toString(), doomed);
    boolean caught = false;
    while (child.isAlive()) {
      if (extraFilesLeft(root.directory()) < EXTRA_FILES * 3 / 4) {
        child.destroyForcibly();
        caught = true;
        break;
      }
      Thread.onSpinWait();
    }
    assertTrue(child.waitFor(60, TimeUnit.SECONDS));
    assertTrue(caught, "the deletion ended before it was killed: " + Files.readString(temp.resolve("child.log")));
    assertTrue(extraFilesLeft(root.directory()) > 0, "killed midway");

    for (String version : root.versions()) {
      try (ShardedStore store = ShardedStore.open(root.path(version))) { // before: 'shard 1 of 4 (shard-00001) is missing'
        store.verify();
      }
    }
    assertEquals(List.of(second), root.versions(), "a version half deleted is listed");
    assertThrows(IllegalStateException.class, root::rollback, "no older version to roll back to");
    assertEquals(second, root.current().orElseThrow());

    String third = build(root, records);
    root.publish(third);
    root.delete(second);
    assertEquals(List.of(third), root.versions());
    try (Stream<Path> entries = Files.list(root.directory())) {
      assertEquals(List.of(), entries.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".deleting-")).toList(),
          "what the killed deletion left");
    }
    assertThrows(NoSuchFileException.class, () -> root.delete(doomed));
    try (ShardedStore store = ShardedStore.open(root.path(third))) {
      store.verify();
      assertFalse(store.isClosed());
    }
  }

  /** A sharded store of {@code records} in the root's next version; its name. */
  private static String build(StoreRoot root, Map<ByteBuffer, byte[]> records) throws IOException {
    Path version = root.newVersion();
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(version, 4)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    return version.getFileName().toString();
  }

  /** The extra files left anywhere in the root (a version's shard, or one being deleted). */
  private static long extraFilesLeft(Path root) throws IOException {
    long left = 0;
    try (Stream<Path> entries = Files.list(root)) {
      for (Path entry : (Iterable<Path>) entries::iterator) {
        Path shard = entry.resolve("shard-00000");
        if (!Files.isDirectory(shard)) {
          continue;
        }
        try (Stream<Path> files = Files.list(shard)) {
          left += files.filter(p -> p.getFileName().toString().startsWith("extra-")).count();
        } catch (NoSuchFileException | java.io.UncheckedIOException goneMeanwhile) {
          // renamed or removed while listed
        }
      }
    }
    return left;
  }
}
