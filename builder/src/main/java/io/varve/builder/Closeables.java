package io.varve.builder;

import java.io.Closeable;
import java.io.IOException;

/** Closing many resources at once. Stateless and thread-safe. */
final class Closeables {
  private Closeables() {}

  /**
   * Closes every non-null resource, even when some fail; throws the first failure with the others
   * suppressed in it.
   */
  static void closeAll(Closeable... resources) throws IOException {
    IOException failure = null;
    for (Closeable resource : resources) {
      if (resource == null) {
        continue;
      }
      try {
        resource.close();
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
