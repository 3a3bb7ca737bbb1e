package io.varve.builder;

import io.varve.core.artifact.StoreFiles;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.shard.ShardManifest;
import io.varve.core.shard.ShardRouter;
import io.varve.core.store.StoreMeta;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Checks that the keys of a finished shard route to it under its manifest's seed and shard count,
 * in one sequential pass over its first records: for whatever takes a sharded store from outside
 * and must not publish one whose manifest lists its shards in another order, or with another seed
 * or shard count, than their keys were routed by. Each manifest entry can match its shard's meta
 * file while the routing does not; lookups then miss the keys routed elsewhere, silently. (The
 * reader checks a shard's first and last key when it opens it, and every key in {@code verify}.)
 *
 * <p>Why a prefix is a fair sample: records lie in the order of their hashes' {@code hi} word,
 * and routing reads only the top bits of {@code lo} ({@link ShardRouter}), so the first {@code k}
 * records' routes are {@code k} independent draws. A manifest that sends a fraction {@code f} of a
 * shard's keys elsewhere passes a sample of {@code k} with probability {@code (1 - f)^k}: a shard
 * listed in another place or under another seed fails at its first record or so. Stateless;
 * thread-safe.
 */
public final class ShardRouting {
  private ShardRouting() {}

  /**
   * Reads the store at {@code store} (a directory or a one-file artifact), which must be shard
   * {@code shard} of {@code manifest}, and checks the routes of its first {@code records} keys
   * (all of them when it holds fewer; {@link Long#MAX_VALUE}: all, and then the data file's
   * checksum too). A shard that keeps no keys is checked through its hash file when it was hashed
   * with the routing seed; otherwise nothing tells its keys' routes, and it passes.
   *
   * @throws CorruptStoreException naming the store and the first record routed elsewhere, or the
   *     damage met on the way
   */
  public static void check(Path store, ShardManifest manifest, int shard, long records) throws IOException {
    java.util.Objects.checkIndex(shard, manifest.shardCount());
    StoreFiles files = StoreFiles.of(store);
    StoreMeta meta = files.readMeta();
    if (!meta.keyMode().keepsKeys() && meta.seed() != manifest.seed()) {
      return;
    }
    int shards = manifest.shardCount();
    // A store that keeps no keys gives the hashes of its hash file instead, which are the routing
    // seed's here; one that keeps them has each key hashed with the routing seed.
    try (StoreScan scan = StoreScan.open(files, meta, RecordHasher.xxh3(manifest.seed()))) {
      for (long rank = 0; rank < records && scan.next(); rank++) {
        int routed = ShardRouter.shardOfHash(scan.lo, shards);
        if (routed != shard) {
          throw new CorruptStoreException(store + ": shard " + shard + " of " + shards + " holds a key routed to shard " + routed
              + " (its record " + rank + "): the manifest lists the shards in another order, or with another seed or shard count,"
              + " than their keys were routed by");
        }
      }
    }
  }
}
