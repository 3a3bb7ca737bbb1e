package io.varve.silt;

import java.util.List;

/**
 * One consistent state of the store, as a reader sees it: the log store taking writes, the frozen
 * ones newest first, and the sorted store. A reader holds a reference while it looks up, so that
 * a merge that replaces the view closes nothing under it. Thread-safe.
 */
final class SiltView extends Retained {
  final LogStore active;
  final List<LogStore> frozen;
  final SortedStore sorted;

  SiltView(LogStore active, List<LogStore> frozen, SortedStore sorted) {
    this.active = active;
    this.frozen = List.copyOf(frozen);
    this.sorted = sorted;
    active.retain();
    this.frozen.forEach(Retained::retain);
    sorted.retain();
  }

  @Override
  void released() {
    active.release();
    frozen.forEach(Retained::release);
    sorted.release();
  }
}
