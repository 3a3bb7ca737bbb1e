package io.varve.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IndexDemoTest extends CommandTestSupport {
  @Test
  void demoBuildsQueriesAndReportsWithoutWrongAnswers() {
    assertEquals(0, run("index-demo", "--keys", "20000", "--lookups", "5000", "--bucket-size", "64", "--skip-levels", "2"));
    String text = stdout();
    assertTrue(text.contains("20,000 keys"), text);
    assertTrue(text.contains("bits/key = tries"), text);
    assertTrue(text.contains("0 wrong"), text);
    assertTrue(text.contains("0 false hits"), text);
  }

  @Test
  void demoHandlesZeroAndOneKeys() {
    assertEquals(0, run("index-demo", "--keys", "0"));
    assertEquals(0, run("index-demo", "--keys=1", "--lookups=10"));
    assertTrue(stdout().contains("0 wrong"), stdout());
  }

  @Test
  void badInputGetsAMessageAndExitCodeTwo() {
    assertAnswers(2, "Examples index-demo: Invalid value for option '--keys': 'many' is not a long", "index-demo", "--keys", "many");
    assertAnswers(2, "--bucket-size must be in [1, 65536], got 0", "index-demo", "--bucket-size", "0");
    assertAnswers(2, "--huffman-max must be in [1, 256], got 99999999999", "index-demo", "--huffman-max", "99999999999");
    assertAnswers(2, "unknown option --colour\n'Examples index-demo --help' describes its options", "index-demo", "--colour", "blue");
    assertAnswers(2, "Missing required parameter for option '--keys' (N)", "index-demo", "--keys");
    assertAnswers(2, "option '--keys' (N) should be specified only once", "index-demo", "--keys", "1", "--keys", "2");
    assertAnswers(2, "unexpected argument 'extra'", "index-demo", "extra");
    assertAnswers(2, "Examples: unknown example 'frobnicate'\n\nUsage: Examples", "frobnicate");
  }

  @Test
  void helpPrintsUsage() {
    for (String help : new String[] {"help", "--help"}) {
      assertEquals(0, run(help));
      assertTrue(stdout().contains("Usage: Examples [-hV] EXAMPLE"), stdout());
      assertTrue(stdout().contains("quickstart") && stdout().contains("index-demo") && stdout().contains("dedup"), stdout());
    }
    assertEquals(0, run("index-demo", "--help"));
    assertTrue(stdout().contains("--bucket-size=G") && stdout().contains("--skip-levels=L"), stdout());
    assertEquals(2, run());
    assertTrue(stderr().contains("Examples: missing EXAMPLE"), stderr());
  }
}
