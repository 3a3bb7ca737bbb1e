package io.varve.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code varve build} and {@code varve merge} stopped by a signal (Ctrl-C, {@code kill}) while
 * they spill: their spills and staging directory are gone when the process has ended, and nothing
 * is published. Until 2026-11-27 they stayed (118 MB for a 136 MB input) until the next run in the
 * same directory. Runs {@code varve} in a child JVM and ends it with SIGTERM (what
 * {@code Process.destroy} sends; Ctrl-C's SIGINT runs the same shutdown).
 */
class InterruptedCommandTest extends CommandTestSupport {
  @Test
  void aBuildOrMergeEndedBySignalLeavesNothing() throws Exception {
    Path input = temp.resolve("in.tsv");
    try (BufferedWriter out = Files.newBufferedWriter(input, StandardCharsets.UTF_8)) {
      for (int i = 0; i < 1_000_000; i++) {
        out.write(String.format("key-%015d\tvalue-%013d%n", i, i));
      }
    }
    Path base = temp.resolve("base");
    Path one = write("one.tsv", "a\t1\n");
    run("build", one.toString(), "--out", base.toString());
    endBySignal(List.of("build", input.toString(), "--out", temp.resolve("built").toString(), "--memory", "4m"));
    endBySignal(List.of("merge", base.toString(), "--out", temp.resolve("merged").toString(), "--upserts", input.toString(),
        "--memory", "4m"));
    assertFalse(Files.exists(temp.resolve("built")));
    assertFalse(Files.exists(temp.resolve("merged")));
    assertNoLeftovers();
  }

  /** Runs varve with {@code args} until its spills appear, then ends it with SIGTERM. */
  private void endBySignal(List<String> args) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>(List.of(java.toString(), "-cp", System.getProperty("java.class.path"), Varve.class.getName()));
    command.addAll(args);
    Process process = new ProcessBuilder(command)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!spilling() && process.isAlive()) {
        assertTrue(System.nanoTime() < deadline, "no spills within 60 s: " + args);
        Thread.sleep(5);
      }
      assertTrue(process.isAlive(), "ended before its spills were seen: " + args);
      process.destroy();
      assertTrue(process.waitFor(60, TimeUnit.SECONDS), "did not end within 60 s of SIGTERM: " + args);
    } finally {
      process.destroyForcibly().waitFor();
    }
  }

  private boolean spilling() throws IOException {
    try (Stream<Path> files = Files.list(temp)) {
      return files.anyMatch(p -> p.getFileName().toString().startsWith(".varve-") && Files.exists(p.resolve("partitions")));
    }
  }
}
