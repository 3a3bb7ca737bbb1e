package io.varve.benchmarks.bufferhash;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.bufferhash.Durability;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The harness wraps its log (more entries than 16 MiB hold) and keeps the newest keys. */
class FullLogCostTest {
  @TempDir Path temp;

  @ParameterizedTest
  @EnumSource(value = Durability.class, names = {"BUFFERS_IN_RAM", "SYNC_ON_CALL"})
  void theNewestKeysAreThereAfterTheLogWrapped(Durability durability) throws Exception {
    double rate = FullLogCost.run(temp.resolve(durability.name()), durability, 800_000);
    assertTrue(rate > 0);
  }
}
