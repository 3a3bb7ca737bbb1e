package io.varve.builder;

import java.io.IOException;
import java.nio.file.Path;

/** Another process's sweep of a parent directory ({@link TemporaryDirectories#sweep}): prints how many it removed. */
public final class SweepChild {
  private SweepChild() {}

  public static void main(String[] args) throws IOException {
    System.out.println("removed " + TemporaryDirectories.sweep(Path.of(args[0])));
  }
}
