package io.varve.benchmarks.bufferhash;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.bufferhash.Durability;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The harness measures what it says: every put is there after reopening, in every mode. */
class DurabilityCostTest {
  @TempDir Path temp;

  @ParameterizedTest
  @EnumSource(Durability.class)
  void everyPutIsThereAfterReopening(Durability durability) throws Exception {
    double rate = DurabilityCost.run(temp.resolve(durability.name()), durability, 300, 2, 50);
    assertTrue(rate > 0);
  }
}
