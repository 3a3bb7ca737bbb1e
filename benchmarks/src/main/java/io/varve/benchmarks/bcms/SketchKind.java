package io.varve.benchmarks.bcms;

import io.varve.bcms.BufferedCountMinSketch;
import io.varve.bcms.CountMinSketch;
import io.varve.bcms.FrequencySketch;
import io.varve.bcms.SketchParameters;
import java.nio.file.Path;

/**
 * The two sketches the BCMS experiments compare: the plain count-min sketch on a memory-mapped file
 * (the paper's baseline) and the buffered sketch. Immutable.
 */
enum SketchKind {
  CMS("CMS (mmap)"),
  BCMS("BCMS");

  final String label;

  SketchKind(String label) {
    this.label = label;
  }

  FrequencySketch create(Path file, SketchParameters parameters, long ramBudgetBytes) {
    return this == CMS
        ? CountMinSketch.create(file, parameters)
        : BufferedCountMinSketch.create(file, parameters, ramBudgetBytes);
  }

  /** Opens without reading the whole file: the experiments' runs start from a dropped page cache. */
  FrequencySketch open(Path file, long ramBudgetBytes) {
    return this == CMS
        ? CountMinSketch.openUnverified(file)
        : BufferedCountMinSketch.openUnverified(file, ramBudgetBytes);
  }
}
