package io.varve.examples.quickstart;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's quickstart runs as written and finds what it built. */
class QuickstartTest {
  @TempDir Path temp;

  @Test
  void theQuickstartRuns() throws Exception {
    PrintStream out = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      Quickstart.main(new String[] {temp.toString()});
    } finally {
      System.setOut(out);
    }
    String text = printed.toString(StandardCharsets.UTF_8);
    System.out.println(text);
    assertTrue(text.contains("built 100000 records"), text);
    assertTrue(text.contains("{\"visits\":42} 13 user:42 true"), text);
    assertTrue(text.contains("true true"), text);
    assertTrue(text.contains("apples: 3"), text);
  }
}
