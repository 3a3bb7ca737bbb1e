package io.varve.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import io.varve.core.artifact.StoreArtifact;
import io.varve.core.index.IndexKind;
import io.varve.core.shard.ShardManifest;
import io.varve.reader.ShardedStore;
import io.varve.reader.StoreStats;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * What {@code varve stats} prints for a sharded store: the manifest's facts (shards, routing seed,
 * key mode, records, when it was written), the sizes of all shards summed, and how records and
 * bytes spread over the shards (smallest, mean, largest, each extreme named), as text or as the
 * {@code sharded} field of {@code stats --json}. Reads the open store once; not thread-safe.
 */
final class ShardedStats {
  private final Path root;
  private final ShardManifest manifest;
  private final StoreStats totals;
  /** Whether each shard is a {@value StoreArtifact#SUFFIX} artifact rather than a directory, in shard order. */
  private final boolean[] artifact;

  ShardedStats(ShardedStore store) {
    this.root = store.root();
    this.manifest = store.manifest();
    this.totals = store.stats();
    List<ShardManifest.Shard> shards = manifest.shards();
    this.artifact = new boolean[shards.size()];
    for (int i = 0; i < artifact.length; i++) {
      // The reader's rule: the directory of the shard's name, or else the artifact.
      artifact[i] = !Files.isDirectory(root.resolve(shards.get(i).name()));
    }
  }

  /** The text form; {@code eachShard} adds a line per shard. */
  void print(PrintStream out, boolean eachShard) {
    out.printf("sharded store %s: %,d shards (format version %d)%n", root, manifest.shardCount(), totals.formatVersion());
    out.printf("  records          %,d%n", manifest.recordCount());
    out.printf("  shards           %s, routed by the keys' hashes with seed %d%n", forms(), manifest.seed());
    out.printf("  written          %s%n", Instant.ofEpochMilli(manifest.createdMillis()));
    out.printf("  shard records    %s%n", spread(ShardManifest.Shard::records, true));
    out.printf("  shard bytes      %s%n", spread(ShardManifest.Shard::bytes, false));
    out.printf("  keys             %s%n", StatsCommand.describe(manifest.keyMode()));
    out.printf("  data             %,d bytes in all shards%n", totals.dataBytes());
    if (totals.indexKind() == IndexKind.ECT) {
      out.printf("  index            %.3f bits/key (ECT: tries %.3f + directory %.3f)%n", totals.indexBitsPerKey(),
          StatsCommand.perKey(totals.trieBits(), totals.records()), StatsCommand.perKey(totals.directoryBits(), totals.records()));
    } else {
      out.printf("  index            %.3f bits/key (%s)%n", totals.indexBitsPerKey(), totals.indexKind().label());
    }
    StatsCommand.printPositionsAndMemory(totals, out);
    if (eachShard) {
      for (int i = 0; i < artifact.length; i++) {
        ShardManifest.Shard shard = manifest.shards().get(i);
        out.printf("  shard %-10d %-18s %,15d records %,18d bytes%s%n", i, fileName(i), shard.records(), shard.bytes(),
            shard.storeSeed() == manifest.seed() ? "" : ", rehashed with seed " + shard.storeSeed());
      }
    }
  }

  /** The {@code sharded} field of {@code stats --json}: the manifest, with every shard. */
  void writeJson(JsonGenerator out) throws IOException {
    out.writeObjectFieldStart("sharded");
    out.writeNumberField("shardCount", manifest.shardCount());
    out.writeNumberField("routingSeed", manifest.seed());
    out.writeNumberField("createdMillis", manifest.createdMillis());
    out.writeArrayFieldStart("shards");
    for (int i = 0; i < artifact.length; i++) {
      ShardManifest.Shard shard = manifest.shards().get(i);
      out.writeStartObject();
      out.writeStringField("name", shard.name());
      out.writeBooleanField("artifact", artifact[i]);
      out.writeNumberField("records", shard.records());
      out.writeNumberField("bytes", shard.bytes());
      out.writeNumberField("storeSeed", shard.storeSeed());
      out.writeEndObject();
    }
    out.writeEndArray();
    out.writeEndObject();
  }

  /** {@code 8 directories}, {@code 8 .varve artifacts}, or {@code 6 directories and 2 .varve artifacts}. */
  private String forms() {
    int artifacts = 0;
    for (boolean a : artifact) {
      artifacts += a ? 1 : 0;
    }
    int directories = artifact.length - artifacts;
    String ofArtifacts = String.format("%,d %s artifact%s", artifacts, StoreArtifact.SUFFIX, artifacts == 1 ? "" : "s");
    String ofDirectories = String.format("%,d director%s", directories, directories == 1 ? "y" : "ies");
    return artifacts == 0 ? ofDirectories : directories == 0 ? ofArtifacts : ofDirectories + " and " + ofArtifacts;
  }

  /**
   * {@code min 120 (shard-00003), mean 125.0, max 131 (shard-00006)}: the first shard of each
   * extreme is named; {@code withSkew} adds the largest over the mean, how much more one shard
   * serves than a perfectly even split would.
   */
  private String spread(ToLongFunction<ShardManifest.Shard> size, boolean withSkew) {
    List<ShardManifest.Shard> shards = manifest.shards();
    int min = 0;
    int max = 0;
    long sum = 0;
    for (int i = 0; i < shards.size(); i++) {
      long value = size.applyAsLong(shards.get(i));
      sum += value;
      if (value < size.applyAsLong(shards.get(min))) {
        min = i;
      }
      if (value > size.applyAsLong(shards.get(max))) {
        max = i;
      }
    }
    double mean = sum / (double) shards.size();
    long largest = size.applyAsLong(shards.get(max));
    String text = String.format("min %,d (%s), mean %,.1f, max %,d (%s)",
        size.applyAsLong(shards.get(min)), shards.get(min).name(), mean, largest, shards.get(max).name());
    return withSkew && sum > 0 ? text + String.format("; largest/mean %.3f", largest / mean) : text;
  }

  private String fileName(int shard) {
    String name = manifest.shards().get(shard).name();
    return artifact[shard] ? name + StoreArtifact.SUFFIX : name + "/";
  }
}
