package io.varve.core.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A second process for {@link ExclusiveUseTest}: prints {@code held} if another process holds the
 * lock on the file named by its argument, {@code free} if it could take it.
 */
public final class LockProbeChild {
  private LockProbeChild() {}

  public static void main(String[] args) throws IOException {
    try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock()) {
      System.out.println(lock == null ? "held" : "free");
    }
  }
}
