package io.varve.silt;

import java.util.List;

/**
 * One consistent state of the store, as a reader sees it: the log store taking writes, the frozen
 * ones newest first, the hash stores newest first, and the sorted store. A reader holds a reference while it looks up, so that
 * a merge that replaces the view closes nothing under it. Thread-safe.
 */
final class SiltView extends Retained {
  final LogStore active;
  final List<LogStore> frozen;
  final List<HashStore> hashStores;
  final SortedStore sorted;

  SiltView(LogStore active, List<LogStore> frozen, List<HashStore> hashStores, SortedStore sorted) {
    this.active = active;
    this.frozen = List.copyOf(frozen);
    this.hashStores = List.copyOf(hashStores);
    this.sorted = sorted;
    parts().forEach(Retained::retain);
  }

  /** Every part, newest first. */
  List<Retained> parts() {
    List<Retained> parts = new java.util.ArrayList<>();
    parts.add(active);
    parts.addAll(frozen);
    parts.addAll(hashStores);
    parts.add(sorted);
    return parts;
  }

  @Override
  void released(boolean delete) {
    parts().forEach(Retained::release);
  }
}
