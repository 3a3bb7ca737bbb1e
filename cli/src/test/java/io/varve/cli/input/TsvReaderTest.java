package io.varve.cli.input;

import static io.varve.cli.input.Records.error;
import static io.varve.cli.input.Records.read;
import static io.varve.cli.input.Records.rec;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class TsvReaderTest {
  private static final InputFormat TSV = InputFormat.TSV;

  @Test
  void readsKeyAndValueByIndex() {
    assertEquals(
        List.of(rec("a", "1", 1), rec("b", "2", 2), rec("c", "3", 3)),
        read("a\t1\nb\t2\nc\t3\n", TSV, "0", "1", false));
  }

  @Test
  void lastLineNeedsNoLineFeed() {
    assertEquals(List.of(rec("a", "1", 1), rec("b", "2", 2)), read("a\t1\nb\t2", TSV, "0", "1", false));
  }

  @Test
  void zeroAndOneRecords() {
    assertEquals(List.of(), read("", TSV, "0", "1", false));
    assertEquals(List.of(), read("\n\n\r\n", TSV, "0", "1", false));
    assertEquals(List.of(), read("k\tv\n", TSV, "k", "v", true));
    assertEquals(List.of(), read("", TSV, "k", "v", true));
    assertEquals(List.of(rec("k", "v", 1)), read("k\tv", TSV, "0", "1", false));
    assertEquals(List.of(rec("x", "y", 2)), read("k\tv\nx\ty\n", TSV, "k", "v", true));
  }

  @Test
  void columnsInAnyOrderAndExtraColumnsIgnored() {
    String text = "z\tv1\tk1\tq\\tq\n\tv2\tk2\n";
    assertEquals(List.of(rec("k1", "v1", 1), rec("k2", "v2", 2)), read(text, TSV, "2", "1", false));
    assertEquals(List.of(rec("k1", "k1", 1), rec("k2", "k2", 2)), read(text, TSV, "2", "2", false));
  }

  @Test
  void headerByNameAndIndex() {
    String text = "id\tname\tscore\nk1\tAda\t10\nk2\tBob\t20\n";
    List<Records.Rec> expected = List.of(rec("k1", "10", 2), rec("k2", "20", 3));
    assertEquals(expected, read(text, TSV, "id", "score", true));
    assertEquals(expected, read(text, TSV, "0", "2", true));
    assertEquals(expected, read(text, TSV, "id", "2", true));
    assertEquals(List.of(rec("Ada", "k1", 2), rec("Bob", "k2", 3)), read(text, TSV, "name", "id", true));
  }

  @Test
  void headerNamesMayBeEscapedAndAfterBlankLinesAndByteOrderMark() {
    String text = "\uFEFF\n\r\nmy\\tkey\tval\nk\tv\n";
    assertEquals(List.of(rec("k", "v", 4)), read(text, TSV, "my\tkey", "val", true));
  }

  @Test
  void decodesEscapesAndKeepsUnknownOnes() {
    String text = "a\\tb\\nc\\rd\\\\e\tC:\\dir\\x\\N\n";
    assertEquals(List.of(rec("a\tb\nc\rd\\e", "C:\\dir\\x\\N", 1)), read(text, TSV, "0", "1", false));
    // A backslash before a line break escapes it (PostgreSQL's COPY does the same): the break is data.
    assertEquals(List.of(rec("a", "b\nc", 1), rec("d", "e", 3)), read("a\tb\\\nc\nd\te\n", TSV, "0", "1", false));
    assertEquals(List.of(rec("\\t", "\\", 1)), read("\\\\t\t\\\\", TSV, "0", "1", false));
    // A backslash last in the input escapes nothing.
    assertEquals(
        "line 1: a backslash at the end of the input escapes nothing (write \\\\ for a backslash)",
        Records.error("k\tv\\", TSV, "0", "1", false).getMessage());
  }

  @Test
  void emptyKeysAndValues() {
    assertEquals(
        List.of(rec("", "", 1), rec("", "v", 2), rec("k", "", 3), rec("", "", 4)),
        read("\t\n\tv\nk\t\n\t\r\n", TSV, "0", "1", false));
  }

  @Test
  void crlfAndLoneCarriageReturnsEndLines() {
    // A carriage return in data is written \r; a raw one ends the line, as in PostgreSQL's COPY.
    assertEquals(
        List.of(rec("a", "1", 1), rec("b", "2", 3), rec("c\r", "x", 4), rec("d", "4", 5)),
        read("a\t1\r\n\r\nb\t2\r\nc\\r\tx\rd\t4\r", TSV, "0", "1", false));
  }

  @Test
  void nonAsciiIsEncodedAsUtf8() {
    List<Records.Rec> records = read("clé\t€ 😀\n日本\tü\n", TSV, "0", "1", false);
    assertEquals(List.of(rec("clé", "€ 😀", 1), rec("日本", "ü", 2)), records);
    assertArrayEquals(
        new byte[] {(byte) 0xE2, (byte) 0x82, (byte) 0xAC, ' ', (byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80},
        records.get(0).value);
  }

  @Test
  void longLinesStreamThroughTheBuffer() {
    String key = "k".repeat(200_000);
    String value = "é".repeat(300_000);
    String skipped = "x".repeat(500_000);
    assertEquals(
        List.of(rec(key, value, 1), rec("a", "b", 2)),
        Records.read(skipped + "\t" + key + "\t" + value + "\t" + skipped + "\n" + "-\ta\tb\n", TSV, "1", "2", false, 4096));
  }

  @Test
  void missingColumnNamesLineAndCounts() {
    InputFormatException e = error("a\tb\tc\nd\te\tf\ng\n", TSV, "2", "0", false);
    assertEquals(3, e.lineNumber());
    assertEquals("line 3: 1 field, key column 2 needs at least 3", e.getMessage());

    e = error("a\tb\n\r\nc\r\n", TSV, "0", "1", false);
    assertEquals("line 3: 1 field, value column 1 needs at least 2", e.getMessage());

    e = error("k\tv\tx\na\tb\tc\na\tb\n", TSV, "k", "x", true);
    assertEquals("line 3: 2 fields, value column 'x' (index 2) needs at least 3", e.getMessage());
  }

  @Test
  void unpairedSurrogateInTheInputIsAnError() {
    InputFormatException e = error("ok\tfine\nk\ud800\tv\n", TSV, "0", "1", false);
    assertEquals("line 2: the key holds an unpaired UTF-16 surrogate (not valid Unicode)", e.getMessage());
    e = error("k\tv\udc00\n", TSV, "0", "1", false);
    assertEquals("line 1: the value holds an unpaired UTF-16 surrogate (not valid Unicode)", e.getMessage());
    // Columns that are not read are not checked.
    assertEquals(List.of(rec("k", "v", 1)), read("k\tv\t\ud800\n", TSV, "0", "1", false));
  }
}
