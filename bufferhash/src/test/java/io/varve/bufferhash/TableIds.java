package io.varve.bufferhash;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Test helper: the id of the table in a directory, from its newest valid state slot. */
final class TableIds {
  private TableIds() {}

  static long of(Path dir) throws IOException {
    byte[] state = Files.readAllBytes(dir.resolve("state"));
    StateSlot first = StateSlot.decodeOrNull(state, 0);
    StateSlot second = StateSlot.decodeOrNull(state, StateSlot.BYTES);
    StateSlot newest = second != null && (first == null || second.generation() > first.generation()) ? second : first;
    if (newest == null) {
      throw new IllegalStateException(dir + ": no valid state slot");
    }
    return newest.tableId();
  }
}
