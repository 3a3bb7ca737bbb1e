package io.varve.reader;

import io.varve.core.store.StoreRoot;
import java.nio.file.Path;

/** {@link KilledDeleteTest}'s child: deletes version {@code args[1]} of the root {@code args[0]}, to be killed midway. */
public final class KilledDeleteChild {
  private KilledDeleteChild() {}

  public static void main(String[] args) throws Exception {
    StoreRoot.open(Path.of(args[0])).delete(args[1]);
    System.out.println("deleted");
  }
}
