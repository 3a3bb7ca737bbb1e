package io.varve.cli.input;

import static io.varve.cli.input.Records.error;
import static io.varve.cli.input.Records.read;
import static io.varve.cli.input.Records.rec;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class CsvReaderTest {
  private static final InputFormat CSV = InputFormat.CSV;

  @Test
  void readsPlainFields() {
    assertEquals(List.of(rec("a", "1", 1), rec("b", "2", 2)), read("a,1\nb,2\n", CSV, "0", "1", false));
    assertEquals(List.of(rec("a", "1", 1), rec("b", "2", 2)), read("a,1\r\nb,2", CSV, "0", "1", false));
  }

  @Test
  void zeroAndOneRecords() {
    assertEquals(List.of(), read("", CSV, "0", "1", false));
    assertEquals(List.of(), read("\r\n", CSV, "0", "1", false));
    assertEquals(List.of(), read("key,value\r\n", CSV, "key", "value", true));
    assertEquals(List.of(rec("k", "v", 1)), read("k,v", CSV, "0", "1", false));
  }

  @Test
  void quotedFieldsHoldCommasQuotesAndLineBreaks() {
    String text = "\"a,b\",\"say \"\"hi\"\"\"\n"
        + "\"multi\nline\r\nkey\",\"v\"\n"
        + "plain,\"\"\n"
        + "\"\",\"\"\"\"\n";
    assertEquals(
        List.of(
            rec("a,b", "say \"hi\"", 1),
            rec("multi\nline\r\nkey", "v", 2),
            rec("plain", "", 5),
            rec("", "\"", 6)),
        read(text, CSV, "0", "1", false));
  }

  @Test
  void lineNumberIsTheRecordsFirstLine() {
    String text = "a,\"1\n2\n3\"\nb,\"x\"\n\n\"c\n\",y\n";
    assertEquals(List.of(rec("a", "1\n2\n3", 1), rec("b", "x", 4), rec("c\n", "y", 6)), read(text, CSV, "0", "1", false));
  }

  @Test
  void quoteInsideAnUnquotedFieldIsData() {
    assertEquals(List.of(rec("5\" disk", "it\"s", 1)), read("5\" disk,it\"s\n", CSV, "0", "1", false));
  }

  @Test
  void skippedColumnsMayBeQuotedAcrossLines() {
    String text = "k1,v1,\"skip\nme, \"\"please\"\"\"\nk2,v2,x\n";
    assertEquals(List.of(rec("k1", "v1", 1), rec("k2", "v2", 3)), read(text, CSV, "0", "1", false));
  }

  @Test
  void headerByNameAndIndex() {
    String text = "\uFEFF\"the key\",other,\"val,ue\"\r\nk,x,v\r\n";
    assertEquals(List.of(rec("k", "v", 2)), read(text, CSV, "the key", "val,ue", true));
    assertEquals(List.of(rec("v", "x", 2)), read(text, CSV, "2", "other", true));
  }

  @Test
  void emptyKeysAndValues() {
    assertEquals(
        List.of(rec("", "", 1), rec("", "v", 2), rec("k", "", 3), rec("", "", 4)),
        read(",\n,v\nk,\n\"\",\"\"\n", CSV, "0", "1", false));
  }

  @Test
  void aLoneCarriageReturnEndsALineAsCrlfDoes() {
    // Commons CSV, as PostgreSQL's COPY, takes CR, LF and CRLF for line ends; in quotes a CR is data.
    assertEquals(
        List.of(rec("a", "b", 1), rec("c", "d", 2), rec("e", "f\rg", 3)),
        read("a,b\rc,d\r\ne,\"f\rg\"\r", CSV, "0", "1", false));
  }

  @Test
  void nonAscii() {
    assertEquals(List.of(rec("Ünïcödé", "😀,🎉", 1)), read("Ünïcödé,\"😀,🎉\"\n", CSV, "0", "1", false));
  }

  @Test
  void unterminatedQuoteNamesWhereItOpens() {
    InputFormatException e = error("a,b\nc,\"open\nand on\n", CSV, "0", "1", false);
    assertEquals(2, e.lineNumber());
    assertEquals(
        "line 2: a quoted field that starts on this record is never closed (no matching '\"' before the end of the input)",
        e.getMessage());
  }

  @Test
  void textAfterAClosingQuoteIsAnError() {
    InputFormatException e = error("a,b\n\"c\"d,e\n", CSV, "0", "1", false);
    assertEquals("line 2: expected ',' or the end of the line after a closing quote", e.getMessage());
  }

  @Test
  void missingColumn() {
    InputFormatException e = error("a,b\n\"multi\nline\"\n", CSV, "0", "1", false);
    assertEquals("line 2: 1 field, value column 1 needs at least 2", e.getMessage());
    e = error("id,v\n1,2\n3\n", CSV, "id", "v", true);
    assertEquals("line 3: 1 field, value column 'v' (index 1) needs at least 2", e.getMessage());
  }
}
