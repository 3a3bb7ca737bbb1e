package io.varve.builder;

import io.varve.core.shard.ShardManifest;
import java.nio.file.Path;

/**
 * What {@link ShardedStoreBuilder#build()} produced. An immutable value; thread-safe.
 *
 * @param root the published sharded store
 * @param manifest its manifest, as written
 * @param recordsPut the records given to {@code put}, duplicates included
 * @param duplicatesDropped records dropped under {@link DuplicatePolicy#LAST_WINS}
 * @param spills buffers the shards spilled to temporary files, all shards together (0: it fit in memory)
 * @param nanos wall-clock time from the first {@code put} to publication
 */
public record ShardedBuildSummary(
    Path root, ShardManifest manifest, long recordsPut, long duplicatesDropped, int spills, long nanos) {}
