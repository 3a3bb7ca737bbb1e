package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.artifact.StoreArtifact;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.shard.ShardManifest;
import io.varve.core.store.KeyMode;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ShardRouting#check} over a sharded store's shards, as built (every key of every shard
 * passes) and under manifests that list them in another order (the first record is refused) or
 * with another seed (a sample of 64 keys a shard is), for full keys and for a store that keeps only hashes (checked through its
 * hash file), from directories and from artifacts.
 */
class ShardRoutingTest {
  private static final long SEED = 0x5A0D7L;
  private static final int SHARDS = 3;

  @TempDir Path temp;

  @ParameterizedTest
  @CsvSource({"full,false", "full,true", "none,false", "none,true"})
  void everyShardRoutesUnderItsManifestAndNotUnderALyingOne(String keys, boolean artifacts) throws IOException {
    System.out.println("ShardRoutingTest seed " + Long.toHexString(SEED));
    Map<ByteBuffer, byte[]> records = TestRecords.variable(3_000, SEED, 16, 16);
    BuildOptions options = BuildOptions.builder().keyMode(keys.equals("full") ? KeyMode.FULL : KeyMode.NONE).build();
    Path root = temp.resolve("store");
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, SHARDS, options)) {
      if (artifacts) {
        builder.shardsAsArtifacts();
      }
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    ShardManifest manifest = ShardManifest.read(root.resolve(ShardManifest.FILE_NAME));
    for (int i = 0; i < SHARDS; i++) {
      ShardRouting.check(shard(root, manifest, i, artifacts), manifest, i, Long.MAX_VALUE);
    }
    List<ShardManifest.Shard> swapped = new ArrayList<>(manifest.shards());
    Collections.swap(swapped, 0, 1);
    ShardManifest inOtherOrder = new ShardManifest(manifest.seed(), manifest.keyMode(), manifest.createdMillis(), swapped);
    CorruptStoreException e = assertThrows(CorruptStoreException.class,
        () -> ShardRouting.check(shard(root, inOtherOrder, 0, artifacts), inOtherOrder, 0, 1));
    assertTrue(e.getMessage().contains("shard 0 of 3 holds a key routed to shard 1 (its record 0)"), e.getMessage());
    ShardManifest otherSeed = new ShardManifest(manifest.seed() + 1, manifest.keyMode(), manifest.createdMillis(), manifest.shards());
    if (keys.equals("full")) {
      assertThrows(CorruptStoreException.class, () -> {
        for (int i = 0; i < SHARDS; i++) {
          ShardRouting.check(shard(root, otherSeed, i, artifacts), otherSeed, i, 64);
        }
      });
    } else {
      // Hashes of the shards' own seed tell nothing of another seed's routes: such a shard passes.
      for (int i = 0; i < SHARDS; i++) {
        ShardRouting.check(shard(root, otherSeed, i, artifacts), otherSeed, i, Long.MAX_VALUE);
      }
    }
  }

  private static Path shard(Path root, ShardManifest manifest, int i, boolean artifacts) {
    String name = manifest.shards().get(i).name();
    return root.resolve(artifacts ? name + StoreArtifact.SUFFIX : name);
  }
}
