package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table's directory is one BufferHash's while it is open. A refused second open in the same
 * process must not release the first's lock: POSIX drops a process's locks on a file when any of
 * its descriptors of that file closes, and the refused open used to open and close one, after
 * which another process opened the directory beside the first.
 */
class BufferHashExclusiveUseTest {
  @TempDir Path temp;

  @Test
  void aRefusedSecondOpenLeavesTheDirectoryLockedAgainstOtherProcesses() throws Exception {
    Path dir = temp.resolve("table");
    try (BufferHash first = BufferHashKillTest.builder(dir, Durability.SYNC_ON_CALL).open()) {
      IllegalStateException refused =
          assertThrows(IllegalStateException.class, () -> BufferHashKillTest.builder(dir, Durability.SYNC_ON_CALL).open());
      assertEquals("refused", openInAnotherProcess(dir), "another process opened the table beside this one");
      assertTrue(refused.getMessage().contains("in this process"), refused.getMessage());
      first.put(key(1), key(2));
    }
    assertEquals("opened", openInAnotherProcess(dir), "the lock outlived close");
  }

  private static byte[] key(int i) {
    return ("k" + i).getBytes(StandardCharsets.UTF_8);
  }

  /** Opens the table in a child JVM and closes it: "opened", or "refused" when it is held. */
  private static String openInAnotherProcess(Path dir) throws IOException, InterruptedException {
    Process child = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-cp", System.getProperty("java.class.path"),
            OpenProbe.class.getName(), dir.toString())
        .redirectErrorStream(true)
        .start();
    String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(child.waitFor(60, TimeUnit.SECONDS));
    for (String line : output.split("\n")) {
      if (line.equals("opened") || line.equals("refused")) {
        return line;
      }
    }
    throw new AssertionError("the child said neither:\n" + output);
  }

  /** The child: tries to open the table in {@code args[0]}. */
  public static final class OpenProbe {
    public static void main(String[] args) throws IOException {
      try (BufferHash table = BufferHashKillTest.builder(Path.of(args[0]), Durability.SYNC_ON_CALL).open()) {
        System.out.println("opened");
      } catch (IllegalStateException e) {
        System.out.println("refused");
      }
    }
  }
}
