package io.varve.bcms;

/**
 * Test adapter: both sketch kinds behind one interface with their pending-update count, so that the
 * property checks of {@link SketchChecks} run unchanged on the plain and the buffered sketch.
 */
interface AnySketch extends FrequencySketch {
  /** Pending buffered updates (always 0 for the plain sketch). */
  long pendingUpdates();

  static AnySketch of(CountMinSketch s) {
    return new Delegate(s, "CountMinSketch(" + (s.path() == null ? "in memory" : s.path()) + ")") {
      @Override
      public long pendingUpdates() {
        return 0;
      }
    };
  }

  static AnySketch of(BufferedCountMinSketch s) {
    return new Delegate(s, "BufferedCountMinSketch(capacity " + s.bufferCapacityPerPage() + ")") {
      @Override
      public long pendingUpdates() {
        return s.pendingUpdates();
      }
    };
  }

  /** Forwards every {@link FrequencySketch} method. */
  abstract class Delegate implements AnySketch {
    private final FrequencySketch sketch;
    private final String name;

    Delegate(FrequencySketch sketch, String name) {
      this.sketch = sketch;
      this.name = name;
    }

    @Override
    public void update(long item, long weight) {
      sketch.update(item, weight);
    }

    @Override
    public void update(byte[] item, long weight) {
      sketch.update(item, weight);
    }

    @Override
    public long estimate(long item) {
      return sketch.estimate(item);
    }

    @Override
    public long estimate(byte[] item) {
      return sketch.estimate(item);
    }

    @Override
    public long totalWeight() {
      return sketch.totalWeight();
    }

    @Override
    public SketchParameters parameters() {
      return sketch.parameters();
    }

    @Override
    public long sizeBytes() {
      return sketch.sizeBytes();
    }

    @Override
    public long ramBytesUsed() {
      return sketch.ramBytesUsed();
    }

    @Override
    public void flush() {
      sketch.flush();
    }

    @Override
    public void close() {
      sketch.close();
    }

    @Override
    public String toString() {
      return name;
    }
  }
}
