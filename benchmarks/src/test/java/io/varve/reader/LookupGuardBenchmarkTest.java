package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Both guards the benchmark compares count an enter and an exit, and leave nothing in flight. */
class LookupGuardBenchmarkTest {
  @Test
  void eachGuardEntersAndExits() {
    for (String kind : new String[] {"exact", "longAdder"}) {
      LookupGuardBenchmark bench = new LookupGuardBenchmark();
      bench.guard = kind;
      bench.setup();
      for (int i = 0; i < 1_000; i++) {
        bench.enterExit();
      }
      int slot = bench.counter.enter();
      bench.counter.exit(slot);
    }
    LookupGuardBenchmark.LongAdderGuard old = new LookupGuardBenchmark.LongAdderGuard();
    int slot = old.enter();
    assertEquals(1, old.sum());
    old.exit(slot);
    assertEquals(0, old.sum());
    LookupGuard exact = new LookupGuard("test");
    slot = exact.slot();
    exact.enter(slot);
    assertEquals(1, exact.inFlight());
    exact.exit(slot);
    assertEquals(0, exact.inFlight());
    exact.close();
    int late = exact.slot();
    assertThrows(StoreClosedException.class, () -> exact.enter(late));
  }
}
