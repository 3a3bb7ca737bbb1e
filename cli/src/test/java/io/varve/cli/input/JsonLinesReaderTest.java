package io.varve.cli.input;

import static io.varve.cli.input.Records.error;
import static io.varve.cli.input.Records.read;
import static io.varve.cli.input.Records.rec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonLinesReaderTest {
  private static final InputFormat JSON = InputFormat.JSON_LINES;

  private static List<Records.Rec> readKv(String text) {
    return read(text, JSON, "k", "v", false);
  }

  private static String errorKv(String text) {
    return error(text, JSON, "k", "v", false).getMessage();
  }

  /** Reads with {@code jsonText}: fields that are not strings give their JSON text. */
  private static List<Records.Rec> readJsonText(String text, String key, String value) {
    List<Records.Rec> records = new ArrayList<>();
    for (int size : Records.BUFFER_SIZES) {
      records.clear();
      try (RecordReader reader =
          RecordReader.open(Records.chunked(new StringReader(text), size), JSON, key, value, false, true)) {
        while (reader.next()) {
          records.add(new Records.Rec(reader.key(), reader.value(), reader.lineNumber()));
        }
        assertFalse(reader.next());
      }
    }
    return records;
  }

  @Test
  void readsStringFields() {
    assertEquals(
        List.of(rec("a", "1", 1), rec("b", "2", 2)),
        readKv("{\"k\":\"a\",\"v\":\"1\"}\n{ \"v\" : \"2\" , \"k\" : \"b\" }\n"));
  }

  @Test
  void zeroAndOneRecords() {
    assertEquals(List.of(), readKv(""));
    assertEquals(List.of(), readKv("\n  \n\t\r\n"));
    assertEquals(List.of(rec("a", "b", 1)), readKv("{\"k\":\"a\",\"v\":\"b\"}"));
  }

  @Test
  void blankLinesAreSkippedAndCrlfAccepted() {
    assertEquals(
        List.of(rec("a", "1", 2), rec("b", "2", 4)),
        readKv("\r\n{\"k\":\"a\",\"v\":\"1\"}\r\n  \r\n{\"k\":\"b\",\"v\":\"2\"}  \r\n\r\n"));
  }

  @Test
  void valuesThatAreNotStringsAreErrorsByDefault() {
    assertEquals(
        "line 1, column 6: field 'k' is a number, not a string: give --json-text to store the JSON text of values that are not strings",
        errorKv("{\"k\":1,\"v\":\"x\"}"));
    assertEquals("line 2, column 14: field 'v' is null, not a string: give --json-text to store the JSON text of values that are not"
        + " strings", errorKv("{\"k\":\"a\",\"v\":\"1\"}\n{\"k\":\"b\",\"v\":null}"));
    assertTrue(errorKv("{\"k\":\"a\",\"v\":{\"x\":1}}").contains("field 'v' is an object, not a string"));
    assertTrue(errorKv("{\"k\":\"a\",\"v\":[1]}").contains("field 'v' is an array, not a string"));
    assertTrue(errorKv("{\"k\":true,\"v\":\"1\"}").contains("field 'k' is true, not a string"));
  }

  @Test
  void withJsonTextOtherValuesGiveTheirCompactText() {
    String text = "{\"k\": 12, \"v\": {\"a\": [1, 2.5e-3, true, null], \"b\": \"x\\\"}\"} }\n"
        + "{\"k\":-0.5E+10,\"v\":[ ]}\n"
        + "{\"k\":true,\"v\":false}\n"
        + "{\"k\":null,\"v\":[[],{},[{\"\":\"\\u00e9\"}]]}\n"
        + "{\"k\":\"s\",\"v\":\"a string stays a string\"}\n";
    assertEquals(
        List.of(
            rec("12", "{\"a\":[1,2.5e-3,true,null],\"b\":\"x\\\"}\"}", 1),
            rec("-0.5E+10", "[]", 2),
            rec("true", "false", 3),
            rec("null", "[[],{},[{\"\":\"é\"}]]", 4),
            rec("s", "a string stays a string", 5)),
        readJsonText(text, "k", "v"));
  }

  @Test
  void escapesAreDecoded() {
    String text = "{\"k\":\"q\\\"b\\\\s\\/\\b\\f\\n\\r\\t\",\"v\":\"\\u0041\\u00e9\\u20AC\\ud83d\\ude00\\u0000\"}\n";
    assertEquals(List.of(rec("q\"b\\s/\b\f\n\r\t", "Aé€😀\u0000", 1)), readKv(text));
  }

  @Test
  void rawNonAsciiAndEmptyStrings() {
    assertEquals(List.of(rec("日本語", "😀é", 1), rec("", "", 2)), readKv("{\"k\":\"日本語\",\"v\":\"😀é\"}\n{\"k\":\"\",\"v\":\"\"}\n"));
  }

  @Test
  void fieldNamesAreMatchedAfterDecodingAndOthersSkipped() {
    String text = "{\"skip\":{\"k\":\"no\"},\"\\u006b\":\"yes\",\"x\":[\"v\"],\"v\":\"val\",\"z\":1}\n";
    assertEquals(List.of(rec("yes", "val", 1)), readKv(text));
    assertEquals(List.of(rec("yes", "yes", 1)), read(text, JSON, "k", "k", false));
    assertEquals(List.of(rec("1", "[\"v\"]", 1)), readJsonText(text, "z", "x"));
  }

  @Test
  void nestingIsBoundedByJacksonsLimit() {
    String deep = "[".repeat(500) + "]".repeat(500);
    assertEquals(List.of(rec("a", deep, 1)), readJsonText("{\"k\":\"a\",\"v\":" + deep + "}", "k", "v"));
    // A hostile line cannot make the reader recurse or buffer without bound: Jackson's depth limit stops it.
    String hostile = "[".repeat(100_000);
    InputFormatException e =
        assertThrows(InputFormatException.class, () -> readKv("{\"k\":\"a\",\"other\":" + hostile + "}"));
    assertTrue(e.getMessage().startsWith("line 1: Document nesting depth (1001) exceeds the maximum allowed"), e.getMessage());
  }

  @Test
  void missingOrRepeatedField() {
    assertEquals("line 2: the object has no field 'k' (the key)", errorKv("{\"k\":\"a\",\"v\":\"1\"}\n{\"v\":\"1\"}\n"));
    assertEquals("line 1: the object has no field 'v' (the value)", errorKv("{\"k\":\"a\"}"));
    assertEquals("line 1: the object has no field 'k' (the key)", errorKv("{}"));
    assertEquals("line 1, column 19: field 'k' appears twice in the object", errorKv("{\"k\":\"a\",\"v\":\"1\", \"k\":\"3\"}"));
  }

  @Test
  void malformedJsonGivesLineAndColumn() {
    assertEquals("line 2, column 1: expected '{' to start the line's JSON object, found an array", errorKv("\n[1]\n"));
    assertEquals("line 1, column 1: expected '{' to start the line's JSON object, found a string", errorKv("\"a\""));
    assertEquals("line 1, column 6: Unexpected character ('1' (code 49)): was expecting a colon to separate field name and value",
        errorKv("{\"k\" 1}"));
    assertEquals("line 1: the object goes on past the end of its line: JSON lines hold one object per line",
        errorKv("{\"k\":\"a\"\n,\"v\":\"1\"}"));
    assertEquals("line 1, column 6: Unexpected character ('}' (code 125)): expected a value", errorKv("{\"k\":}"));
    assertEquals("line 1, column 7: Invalid numeric value: Leading zeroes not allowed", errorKv("{\"k\":01}"));
    assertEquals("line 1, column 19: expected the end of the line after the object, found an object",
        errorKv("{\"k\":\"a\",\"v\":\"b\"} {}"));
    assertEquals("line 1, column 10: Illegal unquoted character ((CTRL-CHAR, code 10)): has to be escaped using backslash to be"
        + " included in string value", errorKv("{\"k\":\"abc\n\"}"));
    assertEquals("line 1, column 10: Unexpected end-of-input: was expecting closing quote for a string value", errorKv("{\"k\":\"abc"));
    assertEquals("line 1, column 10: Unrecognized character escape 'x' (code 120)", errorKv("{\"k\":\"ab\\x\"}"));
    assertEquals("line 3, column 2: Unexpected end-of-input: expected close marker for Object", errorKv("{\"k\":\"1\",\"v\":\"2\"}\n\n{"));
  }

  @Test
  void unpairedSurrogateEscapesAreErrors() {
    for (String key : new String[] {"\\ud83d", "x\\ude00", "\\ud83d\\u0041", "\\ud83dx"}) {
      assertEquals("line 1: field 'k' holds an unpaired UTF-16 surrogate (not valid Unicode)",
          errorKv("{\"k\":\"" + key + "\",\"v\":\"1\"}"), key);
    }
    // A raw one, from a reader that is not a strict decoder.
    assertEquals("line 1: field 'k' holds an unpaired UTF-16 surrogate (not valid Unicode)", errorKv("{\"k\":\"\ud83d\",\"v\":\"1\"}"));
  }

  /** Jackson alone would take a NUL among the first four bytes for UTF-16 or UTF-32 and garble the text. */
  @Test
  void aNulByteIsAnErrorWhereItIs() {
    assertEquals(
        "line 1, column 2: Illegal character ((CTRL-CHAR, code 0)): only regular white space (\\r, \\n, \\t) is allowed between tokens",
        errorKv("\0{\"k\":\"a\",\"v\":\"b\"}\n"));
    assertEquals(
        "line 1, column 3: Illegal character ((CTRL-CHAR, code 0)): only regular white space (\\r, \\n, \\t) is allowed between tokens",
        errorKv("{\0}\n"));
    assertEquals(
        "line 3, column 2: Illegal character ((CTRL-CHAR, code 0)): only regular white space (\\r, \\n, \\t) is allowed between tokens",
        errorKv("{\"k\":\"a\",\"v\":\"b\"}\n\n\0"));
  }

  @Test
  void headerFlagIsIgnoredAndNumericNamesAreNames() {
    assertEquals(List.of(rec("a", "b", 1)), read("{\"0\":\"a\",\"1\":\"b\"}\n", JSON, "0", "1", true));
  }
}
