package io.varve.cli.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class InputFormatTest {
  @Test
  void fromFileName() {
    assertEquals(InputFormat.TSV, InputFormat.fromFileName("data.tsv"));
    assertEquals(InputFormat.TSV, InputFormat.fromFileName("data"));
    assertEquals(InputFormat.TSV, InputFormat.fromFileName("data.txt"));
    assertEquals(InputFormat.CSV, InputFormat.fromFileName("/x/DATA.CSV"));
    assertEquals(InputFormat.JSON_LINES, InputFormat.fromFileName("a.jsonl"));
    assertEquals(InputFormat.JSON_LINES, InputFormat.fromFileName("a.ndjson"));
    assertEquals(InputFormat.JSON_LINES, InputFormat.fromFileName("a.Json"));
  }

  @Test
  void parse() {
    assertEquals(InputFormat.TSV, InputFormat.parse("tsv"));
    assertEquals(InputFormat.CSV, InputFormat.parse("CSV"));
    for (String name : new String[] {"jsonl", "ndjson", "json", "json-lines", "JSON_LINES"}) {
      assertEquals(InputFormat.JSON_LINES, InputFormat.parse(name), name);
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> InputFormat.parse("xml"));
    assertEquals("unknown input format 'xml' (expected tsv, csv or jsonl)", e.getMessage());
  }
}
