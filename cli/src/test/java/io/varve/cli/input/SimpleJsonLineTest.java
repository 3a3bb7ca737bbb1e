package io.varve.cli.input;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The in-place reading of simple JSON lines against Jackson alone: random inputs of mostly simple
 * lines (any spacing, field order, extra fields, non-ASCII and empty strings, CR and CRLF) with a
 * few that are not (escapes, numbers, nesting, a field twice or missing, trailing text, control
 * chars), read as bytes (simple lines in place, Jackson from the first other line) and as chars
 * (Jackson alone): the same records, lines and errors ({@link Records} compares the two).
 */
class SimpleJsonLineTest {
  private static final long SEED = Long.getLong("varve.test.seed", 0x51_4E_1EL);
  private static final String[] STRINGS = {"", "a", "k1", "ключ", "🔑x", " spaced ", "x\u007fy", "{}", "[1]", ",", ":"};
  private static final String[] NOT_SIMPLE = {
    "{\"k\":\"a\\\"b\",\"v\":\"1\"}", "{\"k\":\"a\",\"v\":2}", "{\"k\":\"a\",\"v\":null}", "{\"k\":\"a\",\"v\":\"1\",\"o\":{\"x\":1}}",
    "{\"k\":\"a\",\"k\":\"b\",\"v\":\"1\"}", "{\"k\":\"a\"}", "{\"v\":\"1\"}", "{}", "{\"k\":\"a\",\"v\":\"1\"} x", "{\"k\":\"a\",\"v\":\"1\",}",
    "{\"k\":\"a\" \"v\":\"1\"}", "{\"k\":\"a\",\"v\":\"1\"", "[\"k\"]", "\"k\"", "{\"k\":\"a\u0001\",\"v\":\"1\"}", "{\"k\":\"a\tb\",\"v\":\"1\"}", "{'k':'a','v':'1'}",
    "{\"k\":\"a\",\"v\":\"1\"}{}", "{\"k\":\"\\u00e9\",\"v\":\"1\"}", "{\"\\u006b\":\"a\",\"v\":\"1\"}", "\u000c{\"k\":\"a\",\"v\":\"1\"}",
    "{\"k\":\"a\",\"v\":\"1\"}\u0000"
  };

  @Test
  void readsAsJacksonAloneDoes() {
    System.out.println("SimpleJsonLineTest seed=" + SEED + " (replay with -Dvarve.test.seed=" + SEED + ")");
    SplittableRandom random = new SplittableRandom(SEED);
    int failed = 0;
    for (int round = 0; round < 1500; round++) {
      boolean sameField = random.nextInt(10) == 0;
      String valueField = sameField ? "k" : "v";
      StringBuilder text = new StringBuilder();
      int lines = random.nextInt(round < 20 ? 3 : 300);
      for (int i = 0; i < lines; i++) {
        text.append(random.nextInt(400) == 0 ? NOT_SIMPLE[random.nextInt(NOT_SIMPLE.length)] : simpleLine(random, valueField));
        int end = random.nextInt(10);
        text.append(end == 0 ? "\r\n" : end == 1 ? "\r" : end == 2 ? "\n \t\n" : "\n");
      }
      String input = text.toString();
      try {
        // Reads as bytes and as chars, and compares.
        Records.read(input, InputFormat.JSON_LINES, "k", valueField, false);
      } catch (InputFormatException e) {
        // Compares the two readers' errors (the same message for ASCII text, else the same line).
        Records.error(input, InputFormat.JSON_LINES, "k", valueField, false);
        failed++;
      }
    }
    System.out.println("SimpleJsonLineTest: " + failed + " of 1500 inputs failed");
    // Both kinds of input were tried.
    assertTrue(failed > 50 && failed < 1000, failed + " inputs failed");
  }

  private static String simpleLine(SplittableRandom random, String valueField) {
    String key = "\"k\"" + space(random) + ":" + space(random) + quoted(random);
    String value = "\"" + valueField + "\"" + space(random) + ":" + space(random) + quoted(random);
    String extra = "\"x" + random.nextInt(3) + "\":" + space(random) + quoted(random);
    StringBuilder line = new StringBuilder(space(random)).append('{').append(space(random));
    String[] fields = valueField.equals("k") ? new String[] {key, extra} : new String[] {key, value, extra};
    int skipExtra = random.nextBoolean() ? 1 : 0;
    int first = random.nextInt(fields.length - skipExtra);
    for (int i = 0; i < fields.length - skipExtra; i++) {
      line.append(i == 0 ? "" : space(random) + "," + space(random)).append(fields[(first + i) % (fields.length - skipExtra)]);
    }
    return line.append(space(random)).append('}').append(space(random)).toString();
  }

  private static String space(SplittableRandom random) {
    return random.nextInt(4) != 0 ? "" : random.nextBoolean() ? " " : "\t ";
  }

  private static String quoted(SplittableRandom random) {
    return "\"" + STRINGS[random.nextInt(STRINGS.length)] + (random.nextBoolean() ? random.nextInt(1000) : "") + "\"";
  }

  @Test
  void simpleLinesAreReadInPlaceAndOthersAreNot() {
    SimpleJsonLine simple = new SimpleJsonLine("k", "v", false);
    assertRecord(simple, " {\"v\" : \"1\", \"x\":\"\", \"k\":\"ключ\"}\t", "ключ", "1");
    assertRecord(simple, "{\"k\":\"\",\"v\":\"\"}", "", "");
    for (String line : NOT_SIMPLE) {
      byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
      assertEquals(SimpleJsonLine.NOT_SIMPLE, simple.read(bytes, 0, bytes.length), line);
    }
    assertEquals(SimpleJsonLine.BLANK, simple.read(" \t ".getBytes(StandardCharsets.UTF_8), 0, 3));
    SimpleJsonLine keys = new SimpleJsonLine("k", "v", true);
    byte[] keyOnly = "{\"k\":\"a\"}".getBytes(StandardCharsets.UTF_8);
    assertEquals(SimpleJsonLine.RECORD, keys.read(keyOnly, 0, keyOnly.length));
    assertArrayEquals("a".getBytes(StandardCharsets.UTF_8), keys.key());
  }

  private static void assertRecord(SimpleJsonLine simple, String line, String key, String value) {
    byte[] bytes = ("xx" + line + "yy").getBytes(StandardCharsets.UTF_8);
    assertEquals(SimpleJsonLine.RECORD, simple.read(bytes, 2, bytes.length - 2), line);
    assertArrayEquals(key.getBytes(StandardCharsets.UTF_8), simple.key(), line);
    assertArrayEquals(value.getBytes(StandardCharsets.UTF_8), simple.value(), line);
  }
}
