package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.reader.DataAccess;
import io.varve.reader.Store;
import java.io.IOException;
import java.nio.file.Files;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The open benchmark opens the directory and the artifact of one store, each a store that answers alike. */
class StoreOpenBenchmarkTest {
  @ParameterizedTest
  @EnumSource(DataAccess.class)
  void directoryAndArtifactOpenTheSameStore(DataAccess access) throws IOException {
    StoreOpenBenchmark bench = new StoreOpenBenchmark();
    bench.keys = 5_000;
    bench.access = access;
    bench.setup();
    try {
      for (int round = 0; round < 2; round++) {
        Store directory = bench.openDirectory();
        assertFalse(directory.isArtifact());
        bench.closeOpened();
        assertTrue(directory.isClosed());
        Store artifact = bench.openArtifact();
        assertTrue(artifact.isArtifact());
        assertEquals(access, artifact.dataAccess());
        try (Store again = Store.open(bench.storeDirectory)) {
          assertEquals(5_000, artifact.size());
          for (long i = 0; i < 5_000; i++) {
            byte[] key = StoreLookupBenchmark.key(i);
            assertArrayEquals(StoreLookupBenchmark.value(i), artifact.get(key), "key " + i);
            assertArrayEquals(again.get(key), artifact.get(key), "key " + i);
          }
          assertNull(artifact.get(StoreLookupBenchmark.key(5_000)));
        }
        bench.closeOpened();
        assertTrue(artifact.isClosed());
      }
    } finally {
      bench.tearDown();
    }
    assertFalse(Files.exists(bench.directory));
  }
}
