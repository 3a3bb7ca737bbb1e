package io.varve.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A build whose memory budget does not fit the heap: refused at once when {@code --memory} says so
 * (in process), and, with a budget the heap holds but not the work beside it, reported as out of memory
 * with what to change (exit 3), not as a stack trace with exit 1 ("damaged store"), with no
 * partial store left, and its temporary files gone after the next build. The second runs a JVM with
 * a 32 MiB heap.
 */
class OutOfMemoryCommandTest extends CommandTestSupport {
  @Test
  void aBudgetLargerThanTheHeapIsRefusedAtOnce() throws IOException {
    Path input = write("in.tsv", "a\t1\n");
    long heap = Runtime.getRuntime().maxMemory();
    String tooMuch = ((heap >> 20) + 1) + "m";
    assertEquals(2, run("build", input.toString(), "--out", temp.resolve("out").toString(), "--memory", tooMuch));
    assertTrue(stderr().contains("--memory " + tooMuch + " leaves too little of this JVM's"), stderr());
    assertTrue(stderr().contains("java -Xmx"), stderr());
    assertFalse(Files.exists(temp.resolve("out")));
  }

  @Test
  void runningOutOfHeapSaysWhatToChange() throws Exception {
    Path input = temp.resolve("in.tsv");
    // 1.2 million 40-byte records: more than a 32 MiB heap holds under a 22 MiB budget (the default
    // is a quarter of so small a heap, which fits: SmallHeapBuildTest).
    try (BufferedWriter out = Files.newBufferedWriter(input, StandardCharsets.UTF_8)) {
      for (int i = 0; i < 1_200_000; i++) {
        out.write(String.format("key-%015d\tvalue-%013d%n", i, i));
      }
    }
    Path store = temp.resolve("out");
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    // ParallelGC gives up when collections take nearly all the time (its GC overhead limit): G1 on
    // JDK 25 went on collecting a nearly full heap for over 20 minutes instead of running out.
    Path errors = temp.resolve("stderr.txt");
    Process process =
        new ProcessBuilder(
                List.of(java.toString(), "-Xmx32m", "-XX:+UseParallelGC", "-cp", System.getProperty("java.class.path"),
                    Varve.class.getName(), "build", input.toString(), "--out", store.toString(), "--memory", "22m"))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(errors.toFile())
            .start();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
    String stderr = Files.readString(errors, StandardCharsets.UTF_8);
    Files.delete(errors);
    assertEquals(3, process.exitValue(), stderr);
    assertTrue(stderr.contains("varve build: out of memory (the JVM's heap is "), stderr);
    assertTrue(stderr.contains("give a smaller --memory, or a larger heap"), stderr);
    assertFalse(Files.exists(store));
    // Out of memory after its input, the build could not remove its spills and staging directory;
    // the next build beside them does (their lock died with the process).
    Path small = write("small.tsv", "a\t1\n");
    assertEquals(0, run("build", small.toString(), "--out", temp.resolve("next").toString()), stderr());
    assertNoLeftovers();
  }
}
