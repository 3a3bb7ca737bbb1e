package io.varve.benchmarks.bcms;

import io.varve.bcms.BufferedCountMinSketch;
import io.varve.bcms.CountMinSketch;
import io.varve.bcms.SketchParameters;
import java.nio.file.Path;

/**
 * The two sketches the BCMS experiments compare, behind one face: the plain count-min sketch on a
 * memory-mapped file (the paper's baseline) and the buffered sketch. Not thread-safe.
 */
enum SketchKind {
  CMS("CMS (mmap)"),
  BCMS("BCMS");

  final String label;

  SketchKind(String label) {
    this.label = label;
  }

  /** A sketch of either kind. */
  interface Sketch extends AutoCloseable {
    void update(long item);

    long estimate(long item);

    void flush();

    @Override
    void close();
  }

  Sketch create(Path file, SketchParameters parameters, long ramBudgetBytes) {
    return this == CMS
        ? plain(CountMinSketch.create(file, parameters))
        : buffered(BufferedCountMinSketch.create(file, parameters, ramBudgetBytes));
  }

  Sketch open(Path file, long ramBudgetBytes) {
    return this == CMS
        ? plain(CountMinSketch.openUnverified(file))
        : buffered(BufferedCountMinSketch.openUnverified(file, ramBudgetBytes));
  }

  private static Sketch plain(CountMinSketch sketch) {
    return new Sketch() {
      @Override
      public void update(long item) {
        sketch.update(item);
      }

      @Override
      public long estimate(long item) {
        return sketch.estimate(item);
      }

      @Override
      public void flush() {
        sketch.flush();
      }

      @Override
      public void close() {
        sketch.close();
      }
    };
  }

  private static Sketch buffered(BufferedCountMinSketch sketch) {
    return new Sketch() {
      @Override
      public void update(long item) {
        sketch.update(item);
      }

      @Override
      public long estimate(long item) {
        return sketch.estimate(item);
      }

      @Override
      public void flush() {
        sketch.flush();
      }

      @Override
      public void close() {
        sketch.close();
      }
    };
  }
}
