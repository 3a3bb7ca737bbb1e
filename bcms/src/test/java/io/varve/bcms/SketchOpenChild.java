package io.varve.bcms;

import java.nio.file.Path;

/**
 * A second process that tries to open a buffered sketch's file (args: the file), for tests of
 * sole use across processes: prints "opened", or the exception's class and message.
 */
public final class SketchOpenChild {
  private SketchOpenChild() {}

  public static void main(String[] args) {
    try (BufferedCountMinSketch sketch = BufferedCountMinSketch.open(Path.of(args[0]), 1 << 16)) {
      System.out.println("opened");
    } catch (RuntimeException e) {
      System.out.println(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }
}
