package io.varve.bcms;

import java.util.Objects;

/**
 * The shape of a count-min sketch: {@code depth} rows of {@code width} counters of 32 or 64 bits,
 * the hash seed, whether updates are conservative, and the page size a {@link BufferedCountMinSketch}
 * cuts its counters into.
 *
 * <p>Configure by error, {@code forError(epsilon, delta)}: {@code depth = ceil(ln(1/delta))} and
 * {@code width = ceil(e/epsilon)}, so that an estimate exceeds the true count by more than
 * {@code epsilon · N} (N the total weight) with probability at most {@code delta}. Or by dimensions,
 * {@code ofDimensions(width, depth)}. Then refine:
 *
 * <pre>{@code
 * SketchParameters p = SketchParameters.forError(1e-7, 0.01)   // width 27,182,819, depth 5
 *     .withCounterBits(32)                                      // saturating unsigned 32-bit counters
 *     .withConservativeUpdate(true)
 *     .withSeed(42);
 * }</pre>
 *
 * <p>Counters saturate instead of wrapping: a 32-bit counter stops at {@code 2^32 - 1}, a 64-bit one
 * at {@code Long.MAX_VALUE}. Conservative update (Estan and Varghese) raises each of an item's
 * counters only as far as the item's new estimate, which never underestimates and lowers the
 * overestimate of frequent-item sketches; it costs nothing extra in a buffered sketch, where it is
 * applied when a page's buffer is flushed.
 *
 * <p>Immutable and thread-safe; the {@code with} methods return new instances.
 */
public final class SketchParameters {
  /** The page size of a buffered sketch unless set: one 4 KiB page per flash or disk read. */
  public static final int DEFAULT_PAGE_SIZE = 4096;

  /** The smallest page a buffered sketch accepts. */
  public static final int MIN_PAGE_SIZE = 512;

  /** The largest page a buffered sketch accepts. */
  public static final int MAX_PAGE_SIZE = 1 << 20;

  /** The most rows a sketch may have ({@code delta = e^-64} is far below any practical need). */
  public static final int MAX_DEPTH = 64;

  private final long width;
  private final int depth;
  private final int counterBits;
  private final long seed;
  private final boolean conservativeUpdate;
  private final int pageSize;

  private SketchParameters(
      long width, int depth, int counterBits, long seed, boolean conservativeUpdate, int pageSize) {
    if (width < 1) {
      throw new IllegalArgumentException("width must be at least 1, not " + width);
    }
    if (depth < 1 || depth > MAX_DEPTH) {
      throw new IllegalArgumentException("depth must be in [1, " + MAX_DEPTH + "], not " + depth);
    }
    if (counterBits != 32 && counterBits != 64) {
      throw new IllegalArgumentException("counters have 32 or 64 bits, not " + counterBits);
    }
    if (pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE || Integer.bitCount(pageSize) != 1) {
      throw new IllegalArgumentException(
          "page size must be a power of two in [" + MIN_PAGE_SIZE + ", " + MAX_PAGE_SIZE + "], not " + pageSize);
    }
    if (width > (Long.MAX_VALUE / 2) / ((long) depth * (counterBits / 8))) {
      throw new IllegalArgumentException("a sketch of " + width + " x " + depth + " counters is too large");
    }
    this.width = width;
    this.depth = depth;
    this.counterBits = counterBits;
    this.seed = seed;
    this.conservativeUpdate = conservativeUpdate;
    this.pageSize = pageSize;
  }

  /**
   * The parameters that bound the overestimate by {@code epsilon} times the total weight with
   * probability at least {@code 1 - delta}: {@code width = ceil(e / epsilon)}, {@code depth =
   * ceil(ln(1 / delta))}; 64-bit counters, seed 0, plain updates, 4 KiB pages.
   *
   * @throws IllegalArgumentException unless {@code 0 < epsilon < 1} and {@code 0 < delta < 1}
   */
  public static SketchParameters forError(double epsilon, double delta) {
    if (!(epsilon > 0 && epsilon < 1)) {
      throw new IllegalArgumentException("epsilon must be in (0, 1), not " + epsilon);
    }
    if (!(delta > 0 && delta < 1)) {
      throw new IllegalArgumentException("delta must be in (0, 1), not " + delta);
    }
    double width = Math.ceil(Math.E / epsilon);
    if (width > Long.MAX_VALUE / 16) {
      throw new IllegalArgumentException("epsilon " + epsilon + " needs too wide a sketch");
    }
    int depth = (int) Math.max(1, Math.ceil(Math.log(1 / delta)));
    return ofDimensions((long) width, depth);
  }

  /**
   * A sketch of {@code depth} rows of {@code width} counters; 64-bit counters, seed 0, plain
   * updates, 4 KiB pages.
   */
  public static SketchParameters ofDimensions(long width, int depth) {
    return new SketchParameters(width, depth, 64, 0, false, DEFAULT_PAGE_SIZE);
  }

  /** These parameters with counters of {@code bits} bits (32 or 64). */
  public SketchParameters withCounterBits(int bits) {
    return new SketchParameters(width, depth, bits, seed, conservativeUpdate, pageSize);
  }

  /** These parameters with hash seed {@code seed}; only sketches with equal seeds can be merged. */
  public SketchParameters withSeed(long seed) {
    return new SketchParameters(width, depth, counterBits, seed, conservativeUpdate, pageSize);
  }

  /** These parameters with conservative update switched on or off. */
  public SketchParameters withConservativeUpdate(boolean conservative) {
    return new SketchParameters(width, depth, counterBits, seed, conservative, pageSize);
  }

  /**
   * These parameters with pages of {@code bytes} bytes (a power of two in [512, 1 MiB]), used by
   * {@link BufferedCountMinSketch} only.
   */
  public SketchParameters withPageSize(int bytes) {
    return new SketchParameters(width, depth, counterBits, seed, conservativeUpdate, bytes);
  }

  /** Counters per row (a buffered sketch rounds it up to whole pages). */
  public long width() {
    return width;
  }

  /** Rows: counters each update changes and each estimate reads. */
  public int depth() {
    return depth;
  }

  /** Bits per counter, 32 or 64. */
  public int counterBits() {
    return counterBits;
  }

  /** Bytes per counter, 4 or 8. */
  public int counterBytes() {
    return counterBits / 8;
  }

  /** The largest value a counter holds; counts saturate there. */
  public long counterMax() {
    return counterBits == 32 ? 0xFFFF_FFFFL : Long.MAX_VALUE;
  }

  /** The hash seed. */
  public long seed() {
    return seed;
  }

  /** Whether updates are conservative. */
  public boolean conservativeUpdate() {
    return conservativeUpdate;
  }

  /** Bytes per page of a buffered sketch. */
  public int pageSize() {
    return pageSize;
  }

  /** The relative error bound {@code e / width} these parameters give. */
  public double epsilon() {
    return Math.E / width;
  }

  /** The failure probability bound {@code e^-depth} these parameters give. */
  public double delta() {
    return Math.exp(-depth);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SketchParameters
        && ((SketchParameters) o).width == width
        && ((SketchParameters) o).depth == depth
        && ((SketchParameters) o).counterBits == counterBits
        && ((SketchParameters) o).seed == seed
        && ((SketchParameters) o).conservativeUpdate == conservativeUpdate
        && ((SketchParameters) o).pageSize == pageSize;
  }

  @Override
  public int hashCode() {
    return Objects.hash(width, depth, counterBits, seed, conservativeUpdate, pageSize);
  }

  @Override
  public String toString() {
    return "width " + width + ", depth " + depth + ", " + counterBits + "-bit counters, seed " + seed
        + (conservativeUpdate ? ", conservative update" : "") + ", page " + pageSize + " B";
  }
}
