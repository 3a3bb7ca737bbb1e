package io.varve.reader;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.shard.ShardManifest;
import io.varve.core.shard.ShardRouter;
import io.varve.core.store.HashesReader;
import io.varve.core.store.StoreFile;
import java.io.IOException;

/**
 * The check that the keys of a sharded store's shard route to it by the manifest's seed and shard
 * count. Each entry of a manifest written by hand for shards built apart can match its shard's
 * meta file while the list is in another order, or of another seed or shard count, than the shards
 * were routed by; lookups then miss most keys, silently. Records lie in the order of their hashes'
 * {@code hi} word and routing reads the top of {@code lo}, so a shard's first records are a fair
 * sample of its routes, and they lie together at the start of its data file. Stateless.
 */
final class ShardRoutes {
  /**
   * The records of each shard whose routes the open checks (with its last): with the first and
   * last only, a manifest of two shards under another seed was opened one time in 16, and missed
   * half the keys.
   */
  static final long ROUTED_AT_OPEN = 64;

  private ShardRoutes() {}

  /**
   * Checks the routes of the first {@link #ROUTED_AT_OPEN} records of shard {@code i} and its last:
   * for the open. A damaged record is skipped (it is its lookups' error, and verify's). A shard
   * that keeps no keys is not checked: only its hash file tells its keys' routes, and the open
   * does not read it.
   */
  static void checkSample(Store shard, ShardManifest manifest, int i) {
    long n = shard.size();
    if (n == 0 || !shard.meta().keyMode().keepsKeys()) {
      return;
    }
    ShardRouter router = manifest.router();
    long sampled = Math.min(n, ROUTED_AT_OPEN);
    for (long rank = 0; rank < sampled; rank++) {
      checkKey(shard, manifest, i, router, rank, false);
    }
    if (sampled < n) {
      checkKey(shard, manifest, i, router, n - 1, false);
    }
  }

  /**
   * Checks the route of every record of shard {@code i}: by its key, or, in a shard that keeps no
   * keys, by its hash in the hash file (read and checked whole) when the shard was hashed with the
   * routing seed; for verify. A shard that keeps no keys and was rehashed with a seed of its own
   * cannot be checked.
   */
  static void checkAll(Store shard, ShardManifest manifest, int i) throws IOException {
    if (shard.meta().keyMode().keepsKeys()) {
      ShardRouter router = manifest.router();
      for (long rank = 0; rank < shard.size(); rank++) {
        checkKey(shard, manifest, i, router, rank, true);
      }
      return;
    }
    if (shard.meta().seed() != manifest.seed()) {
      return; // its hashes are of another seed: they tell nothing of the routes
    }
    long[] hash = new long[2];
    try (HashesReader in = HashesReader.open(shard.files().listed(shard.meta(), StoreFile.HASHES), shard.meta())) {
      for (long rank = 0; rank < in.count(); rank++) {
        in.next(hash);
        check(shard, manifest, i, ShardRouter.shardOfHash(hash[1], manifest.shardCount()), rank);
      }
    }
  }

  private static void checkKey(Store shard, ShardManifest manifest, int i, ShardRouter router, long rank, boolean damageFails) {
    byte[] key;
    try {
      key = shard.keyAt(rank);
    } catch (CorruptStoreException damaged) {
      if (damageFails) {
        throw damaged;
      }
      return;
    }
    check(shard, manifest, i, router.shardOf(key), rank);
  }

  private static void check(Store shard, ShardManifest manifest, int i, int routed, long rank) {
    if (routed != i) {
      throw new CorruptStoreException(shard.directory().getParent() + ": shard " + i + " of " + manifest.shardCount() + " ("
          + manifest.shards().get(i).name() + ") holds a key routed to shard " + routed + " (its record " + rank
          + "): the manifest lists the shards in another order, or with another seed or shard count, than their keys were"
          + " routed by");
    }
  }
}
