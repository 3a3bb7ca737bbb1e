package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class HarnessArgumentsTest {
  @Test
  void optionsAndSwitches() {
    Map<String, String> options = HarnessArguments.parse(new String[] {"--records", "10", "--keep", "--out", "x"}, "keep"::equals);
    assertEquals(Map.of("records", "10", "keep", "", "out", "x"), options);
  }

  /** {@code --help} (or any last option without its value) once failed with ArrayIndexOutOfBoundsException. */
  @Test
  void anOptionWithoutItsValueIsAClearError() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> HarnessArguments.parse(new String[] {"--help"}, "keep"::equals));
    assertTrue(e.getMessage().contains("--help needs a value"), e.getMessage());
  }

  @Test
  void strayArgumentsAndRepeatsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> HarnessArguments.parse(new String[] {"records"}, "keep"::equals));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> HarnessArguments.parse(new String[] {"--out", "a", "--out", "b"}, "keep"::equals));
    assertTrue(e.getMessage().contains("--out is given twice"), e.getMessage());
  }
}
