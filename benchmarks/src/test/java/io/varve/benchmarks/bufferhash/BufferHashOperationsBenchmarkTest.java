package io.varve.benchmarks.bufferhash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/** The operations benchmark looks up what it claims to and gets the right values. */
class BufferHashOperationsBenchmarkTest {
  @Test
  void everyOperationDoesWhatItsNameSays() throws Exception {
    BufferHashOperationsBenchmark bench = new BufferHashOperationsBenchmark();
    bench.records = 20_000;
    // A log this small needs more RAM per record than the default: its fixed costs dominate.
    bench.bytesPerRecord = 8;
    bench.setup();
    try {
      assertTrue(bench.table.tuning().capacityEntries() >= bench.records, bench.table.tuning().toString());
      for (int call = 0; call < 3_000; call++) {
        long index = bench.nextPresentIndex();
        assertTrue(Fingerprints.isValueOf(index, bench.getPresent()), "getPresent " + call + ", record " + index);
      }
      for (int call = 0; call < 3_000; call++) {
        assertNull(bench.getAbsent(), "getAbsent " + call);
      }
      for (int call = 0; call < 30_000; call++) {
        bench.put();
      }
      long last = bench.records + 30_000L - 1;
      assertTrue(Fingerprints.isValueOf(last, bench.table.get(Fingerprints.key(last))));
      // The log was full: the puts evicted the oldest records (FIFO).
      assertNull(bench.table.get(Fingerprints.key(0)));
    } finally {
      bench.tearDown();
    }
    assertEquals(false, Files.exists(bench.directory));
  }
}
