package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.varve.core.store.PageCacheWrites;
import io.varve.reader.DataAccess;
import java.io.IOException;
import java.nio.file.Files;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The store lookup benchmark looks up what it claims to and gets the right values. */
class StoreLookupBenchmarkTest {
  @ParameterizedTest
  @CsvSource({
    "MAPPED, SMALL, blocked, 8, true", "MAPPED, HUGE_PAGES, blocked, 8, true", "LOADED, SMALL, blocked, 8, true",
    "MAPPED, SMALL, ect, 8, true", "MAPPED, SMALL, blocked, 4-36, true", "MAPPED, SMALL, ect, 0-40, true",
    "MAPPED, SMALL, blocked, 8, false", "MAPPED, SMALL, blocked, 4-36, false",
    "MAPPED, SMALL, paged, 4-36, true", "LOADED, SMALL, paged, 0-40, true", "MAPPED, SMALL, paged, 4-36, false"
  })
  void getAndGetAllReturnEachQueryValue(
      DataAccess access, PageCacheWrites dataWrites, String index, String valueLengths, boolean recordChecksums) throws IOException {
    StoreLookupBenchmark bench = new StoreLookupBenchmark();
    bench.recordChecksums = recordChecksums;
    bench.keys = 5_000;
    bench.index = index;
    bench.values = valueLengths;
    bench.bucketSize = 64;
    bench.skipLevels = 3;
    bench.access = access;
    bench.dataWrites = dataWrites;
    bench.setup();
    try {
      assertEquals(5_000, bench.store.size());
      assertEquals(index, bench.store.stats().indexKind().label());
      assertEquals(valueLengths.equals("8"), bench.store.meta().isFixedSize());
      assertEquals(recordChecksums, bench.store.meta().recordChecksums());
      StoreLookupBenchmark.Cursor cursor = new StoreLookupBenchmark.Cursor();
      cursor.next = 0;
      for (int call = 0; call < 3_000; call++) {
        int query = cursor.next;
        assertArrayEquals(bench.valueOf(bench.queryIds[query]), bench.get(cursor), "get " + call);
        assertEquals(query + 1, cursor.next);
      }
      for (int call = 0; call < 1_000; call++) {
        assertEquals(null, bench.getAbsent(cursor), "getAbsent " + call);
      }
      cursor.next = 3_000;
      StoreLookupBenchmark.Batch batch = new StoreLookupBenchmark.Batch();
      int first = cursor.next;
      byte[][] values = bench.getAll(cursor, batch);
      for (int i = 0; i < StoreLookupBenchmark.BATCH; i++) {
        assertArrayEquals(bench.valueOf(bench.queryIds[first + i]), values[i], "getAll " + i);
      }
      assertEquals(first + StoreLookupBenchmark.BATCH, cursor.next);
    } finally {
      bench.tearDown();
    }
    assertEquals(false, Files.exists(bench.directory));
  }
}
