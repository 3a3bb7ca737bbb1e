package io.varve.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuickstartTest {
  @TempDir Path temp;

  @Test
  void buildsServesAndTypesAsTheReadmeSays() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Path root = temp.resolve("stores");
    int status = Examples.run(new String[] {"quickstart", root.toString()},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
    String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
    assertEquals("built " + root.resolve("bytes") + ": 100,000 records, 1 duplicate dropped", lines[0]);
    assertEquals("user:7 -> {\"visits\":1000}", lines[1]);
    assertEquals("user:-1 -> null", lines[2]);
    assertEquals("apples -> 3, plums -> null", lines[lines.length - 1]);
    assertFalse(!Files.isDirectory(root.resolve("typed")), "the typed store is kept under the directory given");
  }
}
