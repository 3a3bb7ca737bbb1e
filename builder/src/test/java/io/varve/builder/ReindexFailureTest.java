package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A re-index that writes the records anew (here out of pages) onto a file system that fills up:
 * the full disk also fails the close of its scratch file, and that must not keep its staging
 * directory from being deleted. Until 2026-11-27 it did: the staging directory (7 MB of the 8 MB
 * file system) and its lock stayed until the process ended, since a live process's lock keeps
 * every later run's sweep off it. Needs root to mount a small tmpfs; skipped otherwise.
 */
class ReindexFailureTest {
  @TempDir Path parent;

  @Test
  void aFullDiskLeavesNoStagingDirectory() throws Exception {
    Path small = Files.createDirectory(parent.resolve("small"));
    Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", small.toString()),
        "mounting a tmpfs needs root: skipped");
    try {
      Path paged = parent.resolve("paged");
      try (StoreBuilder builder = StoreBuilder.create(paged)) {
        for (int i = 0; i < 400_000; i++) {
          builder.put(ByteBuffer.allocate(8).putLong(i * 0x9E37_79B9_7F4A_7C15L).array(), new byte[20 + i % 7]);
        }
        builder.build();
      }
      Path target = small.resolve("dense");
      BuildOptions dense = BuildOptions.builder().indexParameters(StoreBuilder.DEFAULT_INDEX).build();
      IOException e = assertThrows(IOException.class, () -> StoreReindexer.reindex(paged, target, dense));
      assertTrue(e.getMessage().startsWith("No space left on device in the store's directory " + small + " (writing "), e.toString());
      try (var left = Files.list(small)) {
        assertEquals(List.of(), left.map(p -> p.getFileName().toString()).toList());
      }
    } finally {
      run("umount", "-l", small.toString()); // lazily: a leaked descriptor must not keep it mounted
    }
  }

  private static boolean run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
  }
}
