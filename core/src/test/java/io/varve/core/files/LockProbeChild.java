package io.varve.core.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
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
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m",
                "-cp",
                System.getProperty("java.class.path"),
                LockProbeChild.class.getName(),
                file.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (child.waitFor() != 0) {
      throw new IllegalStateException("the lock probe failed: " + output);
    }
    return output;
  }
}
