package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store's directory is its own while it is open: a second open, in this process or another, is
 * refused and changes nothing. Two writers would append to one log at their own offsets, and the
 * second open would delete the first's unpublished files as leftovers.
 */
class SiltExclusiveUseTest {
  @TempDir Path temp;

  @Test
  void aSecondOpenInThisProcessIsRefusedAndDeletesNothing() throws Exception {
    Path dir = temp.resolve("store");
    SiltOptions options = SiltOptions.builder().backgroundMerges(false).build();
    try (SiltStore first = SiltStore.open(dir, options)) {
      first.put(bytes("k"), bytes("v1"));
      // What a conversion of the first store writes before its manifest names it.
      Path unpublished = dir.resolve(SiltManifest.hashName(999));
      Files.write(unpublished, new byte[100]);

      IllegalStateException refused = assertThrows(IllegalStateException.class, () -> SiltStore.open(dir, options));
      assertTrue(refused.getMessage().contains("open as a SILT store in this process"), refused.getMessage());
      assertTrue(Files.exists(unpublished), "the refused open deleted the first store's unpublished file");
      Files.delete(unpublished);

      first.put(bytes("k"), bytes("v2"));
      assertArrayEquals(bytes("v2"), first.get(bytes("k")));
    }
    try (SiltStore reopened = SiltStore.open(dir, options)) {
      assertArrayEquals(bytes("v2"), reopened.get(bytes("k")));
    }
  }

  @Test
  void aStoreOpenInAnotherProcessIsRefusedUntilThatProcessDies() throws Exception {
    Path dir = temp.resolve("store");
    Process child = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-cp", System.getProperty("java.class.path"),
            SiltKillChild.class.getName(), dir.toString(), "1", "0", "2")
        .redirectErrorStream(true)
        .start();
    try {
      BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      StringBuilder output = new StringBuilder();
      String line;
      while ((line = lines.readLine()) != null && !line.startsWith("opened at")) {
        output.append(line).append('\n'); // the JDK's logging, on the merged error stream
      }
      assertTrue(line != null, "the child did not open the store:\n" + output);
      IllegalStateException refused = assertThrows(IllegalStateException.class, () -> SiltStore.open(dir, SiltKillChild.options(false)));
      assertTrue(refused.getMessage().contains("in another process"), refused.getMessage());
    } finally {
      child.destroyForcibly();
      assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the child did not die");
    }
    try (SiltStore store = SiltStore.open(dir, SiltKillChild.options(false))) {
      store.put(bytes("after"), bytes("the child"));
      assertArrayEquals(bytes("the child"), store.get(bytes("after")));
    }
  }

  @Test
  void anOpenThatFailsLeavesTheDirectoryFree() throws Exception {
    Path dir = temp.resolve("store");
    Files.createDirectories(dir);
    Path foreign = Files.writeString(dir.resolve("notes.txt"), "not a store");
    assertThrows(IllegalArgumentException.class, () -> SiltStore.open(dir));
    Files.delete(foreign);
    try (SiltStore store = SiltStore.open(dir)) {
      store.put(bytes("k"), bytes("v"));
    }
    try (SiltStore store = SiltStore.open(dir)) {
      assertArrayEquals(bytes("v"), store.get(bytes("k")));
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
