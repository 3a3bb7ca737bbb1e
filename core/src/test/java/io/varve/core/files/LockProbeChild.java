package io.varve.core.files;

import io.varve.core.testing.ChildJvm;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A second process that asks whether a file is locked: {@link #probe} starts it, and it prints
 * {@code held} if another process holds the lock on the file named by its argument, {@code free}
 * if it could take it. Tests use it to see a lock as other processes see it: a process never sees
 * its own locks through {@code tryLock}.
 */
public final class LockProbeChild {
  private LockProbeChild() {}

  public static void main(String[] args) throws IOException {
    try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock()) {
      System.out.println(lock == null ? "held" : "free");
    }
  }

  /** {@code held} or {@code free}: what another process finds when it tries to lock {@code file}. */
  public static String probe(Path file) throws IOException, InterruptedException {
    ChildJvm.Result child = ChildJvm.run("64m", LockProbeChild.class, file.toString());
    if (child.exitCode() != 0) {
      throw new IllegalStateException("the lock probe failed: " + child.output());
    }
    return child.output().strip();
  }
}
