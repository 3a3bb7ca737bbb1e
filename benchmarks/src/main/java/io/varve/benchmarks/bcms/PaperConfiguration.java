package io.varve.benchmarks.bcms;

import io.varve.bcms.SketchParameters;
import io.varve.benchmarks.peers.SyntheticRecords;

/**
 * A row of the paper's Table 1: a sketch of {@code sizeBytes} bytes of 64-bit counters, depth
 * {@code ceil(ln(1/0.01)) = 5}, width {@code ceil(cells / depth)}, and the number of items that
 * makes the overestimate bound {@code epsilon n} equal to 8: {@code n = cells * 8 / (depth * e)}
 * (section 5.2); the buffered sketch's pages are {@code pageBytes} long (the paper: 4 KiB). Immutable.
 */
record PaperConfiguration(long sizeBytes, long width, int depth, long items, int pageBytes) {
  static final double DELTA = 0.01;
  static final int OVERESTIMATE = 8;
  static final int COUNTER_BYTES = 8;

  static PaperConfiguration ofSize(long sizeBytes) {
    return ofSize(sizeBytes, SketchParameters.DEFAULT_PAGE_SIZE);
  }

  /** The configuration of {@code sizeBytes} whose buffered sketch has pages of {@code pageBytes}. */
  static PaperConfiguration ofSize(long sizeBytes, int pageBytes) {
    int depth = (int) Math.ceil(Math.log(1 / DELTA));
    long cells = sizeBytes / COUNTER_BYTES;
    long width = (cells + depth - 1) / depth;
    long items = (long) (cells * (double) OVERESTIMATE / (depth * Math.E));
    return new PaperConfiguration(sizeBytes, width, depth, items, pageBytes);
  }

  SketchParameters parameters(boolean conservative) {
    return SketchParameters.ofDimensions(width, depth).withConservativeUpdate(conservative).withSeed(0x5EED)
        .withPageSize(pageBytes);
  }

  String sizeLabel() {
    return sizeBytes >= 1L << 30 ? (sizeBytes >> 30) + " GiB" : (sizeBytes >> 20) + " MiB";
  }

  /** The {@code i}-th distinct item of the stream: a bijective mix of {@code i}. */
  static long item(long i) {
    return SyntheticRecords.mix(i);
  }
}
