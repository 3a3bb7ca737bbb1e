package io.varve.bcms;

/**
 * Test adapter: both sketch kinds behind one interface, so that the property checks of {@link
 * SketchChecks} run unchanged on the plain and the buffered sketch.
 */
interface AnySketch extends AutoCloseable {
  void update(long item, long weight);

  void update(byte[] item, long weight);

  long estimate(long item);

  long estimate(byte[] item);

  long totalWeight();

  SketchParameters parameters();

  void flush();

  /** Pending buffered updates (always 0 for the plain sketch). */
  long pendingUpdates();

  @Override
  void close();

  static AnySketch of(CountMinSketch s) {
    return new AnySketch() {
      @Override
      public void update(long item, long weight) {
        s.update(item, weight);
      }

      @Override
      public void update(byte[] item, long weight) {
        s.update(item, weight);
      }

      @Override
      public long estimate(long item) {
        return s.estimate(item);
      }

      @Override
      public long estimate(byte[] item) {
        return s.estimate(item);
      }

      @Override
      public long totalWeight() {
        return s.totalWeight();
      }

      @Override
      public SketchParameters parameters() {
        return s.parameters();
      }

      @Override
      public long pendingUpdates() {
        return 0;
      }

      @Override
      public void flush() {
        s.flush();
      }

      @Override
      public void close() {
        s.close();
      }

      @Override
      public String toString() {
        return s.path() == null ? "CountMinSketch(in memory)" : "CountMinSketch(" + s.path() + ")";
      }
    };
  }

  static AnySketch of(BufferedCountMinSketch s) {
    return new AnySketch() {
      @Override
      public void update(long item, long weight) {
        s.update(item, weight);
      }

      @Override
      public void update(byte[] item, long weight) {
        s.update(item, weight);
      }

      @Override
      public long estimate(long item) {
        return s.estimate(item);
      }

      @Override
      public long estimate(byte[] item) {
        return s.estimate(item);
      }

      @Override
      public long totalWeight() {
        return s.totalWeight();
      }

      @Override
      public SketchParameters parameters() {
        return s.parameters();
      }

      @Override
      public long pendingUpdates() {
        return s.pendingUpdates();
      }

      @Override
      public void flush() {
        s.flush();
      }

      @Override
      public void close() {
        s.close();
      }

      @Override
      public String toString() {
        return "BufferedCountMinSketch(capacity " + s.bufferCapacityPerPage() + ")";
      }
    };
  }
}
