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
    assertEquals(2, run("index-demo", "--keys", "many"));
    assertTrue(stderr().contains("--keys expects an integer, got 'many'"), stderr());
    assertEquals(2, run("index-demo", "--bucket-size", "0"));
    assertTrue(stderr().contains("--bucket-size must be in [1, 65536]"), stderr());
    assertEquals(2, run("index-demo", "--colour", "blue"));
    assertTrue(stderr().contains("unknown option --colour"), stderr());
    assertEquals(2, run("index-demo", "--keys"));
    assertTrue(stderr().contains("option --keys needs a value"), stderr());
    assertEquals(2, run("frobnicate"));
    assertTrue(stderr().contains("unknown example 'frobnicate'"), stderr());
  }

  @Test
  void helpPrintsUsage() {
    assertEquals(0, run("help"));
    assertTrue(stdout().contains("usage: Examples EXAMPLE"), stdout());
    assertTrue(stdout().contains("index-demo") && stdout().contains("dedup [PATH...]"), stdout());
    assertEquals(2, run());
  }
}
