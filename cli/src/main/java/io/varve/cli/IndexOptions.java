package io.varve.cli;

import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.codes.TrieCodes;
import io.varve.core.ect.EctParameters;
import io.varve.core.index.IndexKind;
import io.varve.core.index.IndexParameters;
import io.varve.core.store.PagedParameters;
import picocli.CommandLine.Option;

/** The options that choose a store's index and its knobs, shared by build, reindex and demo. Not thread-safe. */
final class IndexOptions {
  @Option(
      names = "--index",
      paramLabel = "paged|blocked|ect",
      description = "the index: paged (default for variable-size records: pages found through a table of about 1.2 bits/key),"
          + " blocked (default for fixed-size records: about 3.5 bits/key, one 128-byte block read per lookup; offsets for variable sizes)"
          + " or ect (about 2.9 bits/key, slower lookups)")
  String kind;

  @Option(
      names = "--keys-per-block",
      paramLabel = "K",
      description = "blocked index knob (default 300; 16 to 640: more is smaller, slower)")
  Integer keysPerBlock;

  @Option(names = "--bucket-size", paramLabel = "G", description = "ECT knob: keys per virtual bucket (default 64; sparse 1024); implies --index ect")
  Long bucketSize;

  @Option(names = "--huffman-max", paramLabel = "H", description = "ECT knob: largest subtrie coded with Huffman codes (default 64)")
  Long huffmanMax;

  @Option(names = "--skip-levels", paramLabel = "L", description = "ECT knob: trie levels that store skip lengths (default 3; sparse 0)")
  Long skipLevels;

  /**
   * The index asked for, or null when nothing is given, which leaves the choice to the library
   * (its default index, or a store's own when re-indexing). Knobs alone name their kind; missing
   * ECT knobs come from {@code ectDefaults}.
   *
   * @throws IllegalArgumentException for knobs of the other kind, a knob out of range, or an unknown kind
   */
  IndexParameters parameters(EctParameters ectDefaults) {
    boolean ectKnobs = bucketSize != null || huffmanMax != null || skipLevels != null;
    boolean blockedKnobs = keysPerBlock != null;
    IndexKind chosen =
        kind != null ? IndexKind.fromLabel(kind) : ectKnobs ? IndexKind.ECT : blockedKnobs ? IndexKind.BLOCKED : null;
    if (chosen == null) {
      return null;
    }
    if (chosen == IndexKind.PAGED) {
      if (ectKnobs || blockedKnobs) {
        throw new IllegalArgumentException("a paged store has no index knobs (--index paged)");
      }
      return PagedParameters.INSTANCE;
    }
    if (chosen == IndexKind.ECT) {
      if (blockedKnobs) {
        throw new IllegalArgumentException("--keys-per-block is a knob of the blocked index, not of an ECT index");
      }
      return new EctParameters(
          Arguments.inRange("--bucket-size", bucketSize, ectDefaults.bucketSize(), 1, EctParameters.MAX_BUCKET_SIZE),
          Arguments.inRange("--huffman-max", huffmanMax, ectDefaults.huffmanMax(), 1, TrieCodes.MAX_HUFFMAN_CONTEXT),
          Arguments.inRange("--skip-levels", skipLevels, ectDefaults.skipLevels(), 0, EctParameters.MAX_SKIP_LEVELS));
    }
    if (ectKnobs) {
      throw new IllegalArgumentException(
          "--bucket-size, --huffman-max and --skip-levels are knobs of the ECT index (--index ect), not of a blocked index");
    }
    return new BlockedIndexParameters(
        Arguments.inRange(
            "--keys-per-block",
            keysPerBlock == null ? null : keysPerBlock.longValue(),
            BlockedIndexParameters.DEFAULT.keysPerBlock(),
            BlockedIndexParameters.MIN_KEYS_PER_BLOCK,
            BlockedIndexParameters.MAX_KEYS_PER_BLOCK));
  }
}
