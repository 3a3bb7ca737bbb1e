package io.varve.builder;

import io.varve.core.store.StoreMeta;
import java.nio.file.Path;

/**
 * What {@link StoreBuilder#build()} produced. An immutable value; thread-safe.
 *
 * @param directory the published store directory
 * @param meta the store's metadata, as written
 * @param recordsPut the records given to {@code put}, duplicates included
 * @param duplicatesDropped records dropped under {@link DuplicatePolicy#LAST_WINS}
 * @param spills buffers spilled to the temporary directory (0: the build fit in memory)
 * @param seedAttempts hash seeds tried (more than 1 only after a 128-bit hash collision)
 * @param nanos wall-clock time from the first {@code put} to publication
 */
public record BuildSummary(
    Path directory, StoreMeta meta, long recordsPut, long duplicatesDropped, int spills, int seedAttempts, long nanos) {}
