package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default memory budget fits the heap: it was 256 MiB whatever the heap, and a build of more
 * input than that ran out of memory on a heap of 300 MiB or less (a JVM's default heap in a
 * container of 1 GiB is 256 MiB). Now a smaller heap gets a quarter of itself.
 */
class SmallHeapBuildTest {
  @TempDir Path dir;

  @Test
  void aBuildWithTheDefaultsFitsA64MiBHeap() throws Exception {
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m",
                "-cp",
                System.getProperty("java.class.path"),
                SmallHeapBuildChild.class.getName(),
                dir.resolve("store").toString(),
                "150000")
            .redirectErrorStream(true)
            .start();
    String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, child.waitFor(), output);
    assertTrue(output.contains("built 150000"), output);
  }

  @Test
  void theDefaultBudgetIsAQuarterOfASmallHeapAndAtMost256MiB() {
    long heap = Runtime.getRuntime().maxMemory();
    long budget = BuildOptions.defaultMemoryBudget();
    assertTrue(budget <= BuildOptions.DEFAULT_MEMORY_BUDGET, "at most 256 MiB: " + budget);
    assertTrue(budget <= Math.max(BuildOptions.MIN_MEMORY_BUDGET, heap / 4), "at most a quarter of the heap: " + budget);
    assertEquals(budget, BuildOptions.DEFAULTS.memoryBudget());
    assertEquals(budget, BuildOptions.builder().build().memoryBudget());
  }
}
