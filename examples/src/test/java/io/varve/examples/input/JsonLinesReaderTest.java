package io.varve.examples.input;

import static io.varve.examples.input.Records.error;
import static io.varve.examples.input.Records.read;
import static io.varve.examples.input.Records.rec;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
  void otherValuesGiveTheirTextAsWritten() {
    String text = "{\"k\": 12, \"v\": {\"a\": [1, 2.5e-3, true, null], \"b\": \"x\\\"}\"} }\n"
        + "{\"k\":-0.5E+10,\"v\":[ ]}\n"
        + "{\"k\":true,\"v\":false}\n"
        + "{\"k\":null,\"v\":[[],{},[{\"\":\"\\u00e9\"}]]}\n";
    assertEquals(
        List.of(
            rec("12", "{\"a\": [1, 2.5e-3, true, null], \"b\": \"x\\\"}\"}", 1),
            rec("-0.5E+10", "[ ]", 2),
            rec("true", "false", 3),
            rec("null", "[[],{},[{\"\":\"\\u00e9\"}]]", 4)),
        readKv(text));
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
    assertEquals(List.of(rec("1", "[\"v\"]", 1)), read(text, JSON, "z", "x", true));
  }

  @Test
  void deepNestingIsFine() {
    String deep = "[".repeat(100_000) + "]".repeat(100_000);
    assertEquals(List.of(rec("a", deep, 1)), Records.read("{\"k\":\"a\",\"v\":" + deep + "}", JSON, "k", "v", false, 1 << 16));
  }

  @Test
  void missingOrRepeatedField() {
    assertEquals("line 2: the object has no field 'k' (the key)", errorKv("{\"k\":\"a\",\"v\":\"1\"}\n{\"v\":\"1\"}\n"));
    assertEquals("line 1: the object has no field 'v' (the value)", errorKv("{\"k\":\"a\"}"));
    assertEquals("line 1: the object has no field 'k' (the key)", errorKv("{}"));
    assertEquals("line 1, column 15: field 'k' appears twice in the object", errorKv("{\"k\":1,\"v\":2, \"k\":3}"));
  }

  @Test
  void malformedJsonGivesLineAndColumn() {
    assertEquals("line 2, column 1: expected '{' to start the line's JSON object, found '['", errorKv("\n[1]\n"));
    assertEquals("line 1, column 6: expected ':' after the field name, found '1'", errorKv("{\"k\" 1}"));
    assertEquals("line 1, column 9: expected ',' or '}' after a field's value, found the end of the line", errorKv("{\"k\":\"a\"\n,\"v\":1}"));
    assertEquals("line 1, column 6: expected a JSON value, found '}'", errorKv("{\"k\":}"));
    assertEquals("line 1, column 8: expected 'true', found 'x'", errorKv("{\"k\":trx}"));
    assertEquals("line 1, column 7: expected a digit in a number, found 'x'", errorKv("{\"k\":-x}"));
    assertEquals("line 1, column 8: expected a digit in a number, found '}'", errorKv("{\"k\":1.}"));
    assertEquals("line 1, column 7: expected ',' or '}' after a field's value, found '1'", errorKv("{\"k\":01}"));
    assertEquals("line 1, column 13: expected ',' or ']' in an array, found '}'", errorKv("{\"v\":[1,[2,3}]}"));
    assertEquals("line 1, column 13: expected a field name in double quotes, found '1'", errorKv("{\"v\":{\"a\":1,1}}"));
    assertEquals("line 1, column 19: expected the end of the line after the object, found '{'", errorKv("{\"k\":\"a\",\"v\":\"b\"} {}"));
    assertEquals("line 1, column 10: the string is not closed before the end of the line", errorKv("{\"k\":\"abc\n\"}"));
    assertEquals("line 1, column 10: the string is not closed before the end of the input", errorKv("{\"k\":\"abc"));
    assertEquals("line 1, column 9: control character U+0009 must be escaped in a string", errorKv("{\"k\":\"ab\tc\"}"));
    assertEquals("line 1, column 9: invalid escape '\\x' in a string", errorKv("{\"k\":\"ab\\x\"}"));
    assertEquals("line 1, column 11: expected 4 hex digits after '\\u', found 'g'", errorKv("{\"k\":\"\\u12g4\"}"));
    assertEquals("line 3, column 2: expected a field name in double quotes, found the end of the input", errorKv("{\"k\":1,\"v\":2}\n\n{"));
  }

  @Test
  void unpairedSurrogateEscapesAreErrors() {
    assertEquals(
        "line 1, column 7: unpaired UTF-16 surrogate \\uD83D in a string (not valid Unicode)",
        errorKv("{\"k\":\"\\ud83d\",\"v\":1}"));
    assertEquals(
        "line 1, column 8: unpaired UTF-16 surrogate \\uDE00 in a string (not valid Unicode)",
        errorKv("{\"k\":\"x\\ude00\",\"v\":1}"));
    assertEquals(
        "line 1, column 7: unpaired UTF-16 surrogate \\uD83D in a string (not valid Unicode)",
        errorKv("{\"k\":\"\\ud83d\\u0041\",\"v\":1}"));
    assertEquals(
        "line 1, column 7: unpaired UTF-16 surrogate \\uD83D in a string (not valid Unicode)",
        errorKv("{\"k\":\"\\ud83dx\",\"v\":1}"));
    assertEquals("line 1: the key holds an unpaired UTF-16 surrogate (not valid Unicode)", errorKv("{\"k\":\"\ud83d\",\"v\":1}"));
  }

  @Test
  void headerFlagIsIgnoredAndNumericNamesAreNames() {
    assertEquals(List.of(rec("a", "b", 1)), read("{\"0\":\"a\",\"1\":\"b\"}\n", JSON, "0", "1", true));
  }
}
