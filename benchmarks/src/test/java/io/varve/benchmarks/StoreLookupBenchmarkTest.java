package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import io.varve.core.store.PageCacheWrites;
import io.varve.reader.DataAccess;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The store lookup benchmark looks up what it claims to and gets the right values. */
class StoreLookupBenchmarkTest {
  @ParameterizedTest
  @CsvSource({"MAPPED, SMALL", "MAPPED, HUGE_PAGES", "LOADED, SMALL"})
  void getAndGetAllReturnEachQueryValue(DataAccess access, PageCacheWrites dataWrites) throws IOException {
    StoreLookupBenchmark bench = new StoreLookupBenchmark();
    bench.keys = 5_000;
    bench.bucketSize = 64;
    bench.skipLevels = 3;
    bench.access = access;
    bench.dataWrites = dataWrites;
    bench.setup();
    try {
      assertEquals(5_000, bench.store.size());
      StoreLookupBenchmark.Cursor cursor = new StoreLookupBenchmark.Cursor();
      cursor.next = 0;
      for (int call = 0; call < 3_000; call++) {
        int query = cursor.next;
        assertArrayEquals(StoreLookupBenchmark.value(bench.queryIds[query]), bench.get(cursor), "get " + call);
        assertEquals(query + 1, cursor.next);
      }
      StoreLookupBenchmark.Batch batch = new StoreLookupBenchmark.Batch();
      int first = cursor.next;
      byte[][] values = bench.getAll(cursor, batch);
      for (int i = 0; i < StoreLookupBenchmark.BATCH; i++) {
        assertArrayEquals(StoreLookupBenchmark.value(bench.queryIds[first + i]), values[i], "getAll " + i);
      }
      assertEquals(first + StoreLookupBenchmark.BATCH, cursor.next);
    } finally {
      bench.tearDown();
    }
    assertEquals(false, Files.exists(bench.directory));
  }
}
