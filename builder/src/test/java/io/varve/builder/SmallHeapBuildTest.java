package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.ChildJvm;
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
    ChildJvm.Result child = ChildJvm.run("64m", SmallHeapBuildChild.class, dir.resolve("store").toString(), "150000");
    assertEquals(0, child.exitCode(), child.output());
    assertTrue(child.output().contains("built 150000"), child.output());
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
