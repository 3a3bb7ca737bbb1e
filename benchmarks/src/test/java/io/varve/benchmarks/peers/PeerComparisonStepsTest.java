package io.varve.benchmarks.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** {@code --steps} names which measurements follow each build. */
class PeerComparisonStepsTest {
  @Test
  void stepsParseInAnyCaseAndOrder() {
    assertEquals(EnumSet.of(PeerComparison.Step.WARM), PeerComparison.Step.parse("warm"));
    assertEquals(
        EnumSet.of(PeerComparison.Step.WARM, PeerComparison.Step.UPDATE), PeerComparison.Step.parse("UPDATE, warm"));
    assertEquals(EnumSet.allOf(PeerComparison.Step.class), PeerComparison.Step.parse("cold,update,warm"));
  }

  @Test
  void anUnknownStepIsNamedWithTheValidOnes() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PeerComparison.Step.parse("warm,build"));
    assertTrue(e.getMessage().contains("build") && e.getMessage().contains("warm, cold, update"), e.getMessage());
  }
}
