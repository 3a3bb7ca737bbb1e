package io.varve.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.ect.EctParameters;
import io.varve.core.store.KeyMode;
import io.varve.core.store.StoreFile;
import io.varve.reader.ShardedStore;
import io.varve.reader.Store;
import io.varve.reader.StoreStats;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code varve stats DIR [--json]}: a store's sizes, key mode, index and user metadata, as text
 * or as one JSON object. A sharded store's root gives its manifest's facts, the sizes of all its
 * shards summed, and how the records spread over the shards ({@link ShardedStats}). Not thread-safe.
 */
@Command(
    name = "stats",
    mixinStandardHelpOptions = true,
    header = "Prints a store's sizes, key mode, index and metadata.",
    usageHelpWidth = 100,
    description = "Prints records, key mode, sizes, bits per key of index and offsets (or blocks), memory, and the user metadata the"
        + " store was built with. For a sharded store: its manifest (shards, routing seed, key mode), the sizes of all shards"
        + " summed, and the smallest, mean and largest shard.")
final class StatsCommand implements Callable<Integer> {
  private static final JsonFactory JSON = new JsonFactory();

  @ParentCommand Varve varve;

  @Parameters(index = "0", paramLabel = "DIR", description = Arguments.STORE_PARAMETER)
  String dir;

  @Option(
      names = "--json",
      description = "one JSON object: the library's StoreStats.toJson() fields, keyMode, and metadata (an object of the user"
          + " metadata's keys and values); for a sharded store, sharded (its manifest, with every shard) instead of metadata")
  boolean json;

  @Option(names = "--shards", description = "for a sharded store, also a line per shard: its records, bytes and file")
  boolean eachShard;

  @Override
  public Integer call() throws IOException {
    if (Arguments.isShardedRoot(dir)) {
      try (ShardedStore store = Arguments.openSharded(dir, false)) {
        ShardedStats stats = new ShardedStats(store);
        if (json) {
          varve.out.println(json(store.stats(), store.manifest().keyMode(), stats::writeJson));
        } else {
          stats.print(varve.out, eachShard);
        }
      }
      return Varve.OK;
    }
    if (eachShard) {
      throw new IllegalArgumentException("--shards is for a sharded store, and " + dir + " is one store");
    }
    try (Store store = Arguments.openStore(dir, false)) {
      StoreStats stats = store.stats();
      if (json) {
        varve.out.println(json(stats, store.meta().keyMode(), store.meta().userMetadata()));
      } else {
        print(store, stats, varve.out);
      }
    }
    return Varve.OK;
  }

  /**
   * The stats as JSON: the library's fields as it writes them (so that they never drift from
   * {@link StoreStats#toJson}), then the key mode and the user metadata, which are the store's
   * (its meta), not sizes.
   */
  static String json(StoreStats stats, KeyMode keyMode, Map<String, String> metadata) throws IOException {
    return json(stats, keyMode, out -> {
      out.writeObjectFieldStart("metadata");
      for (Map.Entry<String, String> entry : metadata.entrySet()) {
        out.writeStringField(entry.getKey(), entry.getValue());
      }
      out.writeEndObject();
    });
  }

  /** What a JSON object holds beyond the sizes and the key mode: written as fields of the object. */
  interface JsonFields {
    void writeTo(JsonGenerator out) throws IOException;
  }

  /** The stats as JSON, as {@link #json(StoreStats, KeyMode, Map)} writes them, with {@code rest} last. */
  static String json(StoreStats stats, KeyMode keyMode, JsonFields rest) throws IOException {
    StringWriter text = new StringWriter();
    try (JsonParser sizes = JSON.createParser(stats.toJson());
        JsonGenerator out = JSON.createGenerator(text)) {
      if (sizes.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalStateException("StoreStats.toJson() is not an object: " + stats.toJson());
      }
      out.writeStartObject();
      while (sizes.nextToken() == JsonToken.FIELD_NAME) {
        out.copyCurrentEvent(sizes);
        sizes.nextToken();
        out.copyCurrentStructure(sizes);
      }
      out.writeStringField("keyMode", keyMode.toString());
      rest.writeTo(out);
      out.writeEndObject();
    }
    return text.toString();
  }

  static void print(Store store, StoreStats stats, PrintStream out) {
    out.printf("store %s (format version %d)%n", store.directory(), stats.formatVersion());
    out.printf("  records          %,d%n", stats.records());
    KeyMode keyMode = store.meta().keyMode();
    out.printf("  data             %,d bytes (%s records)%n", stats.dataBytes(),
        store.meta().isFixedSize()
            ? "fixed-size: " + storedKeys(keyMode, store.meta().keyLength()) + ", " + store.meta().valueLength() + "-byte values"
            : "variable-size");
    out.printf("  keys             %s%n", describe(keyMode));
    if (!keyMode.keepsKeys()) {
      out.printf("  hashes           %,d bytes (the keys' hashes, for merge and reindex; lookups never read them)%n",
          store.meta().file(StoreFile.HASHES).size());
    }
    if (store.meta().indexParameters() instanceof EctParameters ect) {
      out.printf("  index            %.3f bits/key (ECT: tries %.3f + directory %.3f; g=%d, hmax=%d, skip levels %d)%n",
          stats.indexBitsPerKey(),
          perKey(stats.trieBits(), stats.records()),
          perKey(stats.directoryBits(), stats.records()),
          ect.bucketSize(),
          ect.huffmanMax(),
          ect.skipLevels());
    } else if (store.meta().isPaged()) {
      out.printf("  index            %.3f bits/key (paged: a table of %d-byte pages)%n", stats.indexBitsPerKey(), store.meta().pageBytes());
    } else {
      out.printf("  index            %.3f bits/key (blocked: %d keys per 1024-bit block on average)%n",
          stats.indexBitsPerKey(),
          ((BlockedIndexParameters) store.meta().indexParameters()).keysPerBlock());
    }
    printPositionsAndMemory(stats, out);
    out.printf("  hash seed        %d%n", store.meta().seed());
    store.meta().userMetadata().forEach((k, v) -> out.printf("  meta %-11s %s%n", k, v));
  }

  /** The lines after the index: offsets (or a sparse index's blocks), memory, files. */
  static void printPositionsAndMemory(StoreStats stats, PrintStream out) {
    if (stats.blockBytes() != 0) {
      // A sparse index finds a key's block, not its record: the block size bounds what a lookup reads.
      out.printf("  sparse index     %d-byte blocks (a lookup searches one block)%n", stats.blockBytes());
      out.printf("  block table      %.3f bits/key%n", stats.offsetsBitsPerKey());
    } else {
      out.printf("  offsets          %.3f bits/key%n", stats.offsetsBitsPerKey());
    }
    out.printf("  memory           %.3f bits/key (%,d bytes of heap)%n", stats.memoryBitsPerKey(), stats.memoryBytes());
    if (stats.loadedBytes() > 0) {
      out.printf("  loaded           %,d bytes of records in memory outside the heap%n", stats.loadedBytes());
    }
    out.printf("  files            %,d bytes%n", stats.fileBytes());
  }

  /** What a store of {@code mode} answers for keys, in a phrase. */
  static String describe(KeyMode mode) {
    return switch (mode.kind()) {
      case FULL -> "full";
      case SIGNATURE -> mode + " (absent keys found with probability 2^-" + mode.signatureBits() + ")";
      case NONE -> "none (lookups of absent keys are undefined)";
    };
  }

  /** The key part of fixed-size records: a signature's bytes are not a key's. */
  private static String storedKeys(KeyMode mode, int keyLength) {
    return switch (mode.kind()) {
      case FULL -> keyLength + "-byte keys";
      case SIGNATURE -> keyLength + "-byte signatures";
      case NONE -> "no keys";
    };
  }

  static double perKey(long bits, long records) {
    return records == 0 ? 0 : bits / (double) records;
  }
}
