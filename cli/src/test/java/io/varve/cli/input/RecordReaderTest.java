package io.varve.cli.input;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The reader's life cycle and argument checks; the formats have their own tests. */
class RecordReaderTest {
  /** Remembers whether it was closed. */
  private static final class TrackingReader extends StringReader {
    boolean closed;

    TrackingReader(String text) {
      super(text);
    }

    @Override
    public void close() {
      closed = true;
      super.close();
    }
  }

  @Test
  void keyAndValueArraysBelongToTheCaller() {
    try (RecordReader reader = RecordReader.open(new StringReader("a\tb\nc\td\n"), InputFormat.TSV, "0", "1", false)) {
      assertEquals(0, reader.lineNumber());
      assertThrows(IllegalStateException.class, reader::key);
      assertTrue(reader.next());
      byte[] first = reader.key();
      assertSame(first, reader.key());
      assertEquals(1, reader.lineNumber());
      assertTrue(reader.next());
      assertArrayEquals("a".getBytes(StandardCharsets.UTF_8), first);
      assertArrayEquals("c".getBytes(StandardCharsets.UTF_8), reader.key());
      assertArrayEquals("d".getBytes(StandardCharsets.UTF_8), reader.value());
      assertFalse(reader.next());
      assertEquals(0, reader.lineNumber());
      assertThrows(IllegalStateException.class, reader::value);
      assertFalse(reader.next());
    }
  }

  @Test
  void namesNeedAHeader() {
    TrackingReader in = new TrackingReader("a\tb\n");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> RecordReader.open(in, InputFormat.TSV, "id", "1", false));
    assertEquals(
        "key column 'id' is a name, which needs a header line: give a 0-based index (such as 0) or declare that the"
            + " input has a header",
        e.getMessage());
    assertTrue(in.closed);
    e = assertThrows(IllegalArgumentException.class, () -> RecordReader.open(new StringReader(""), InputFormat.CSV, "0", "val", false));
    assertTrue(e.getMessage().startsWith("value column 'val' is a name"), e.getMessage());
  }

  @Test
  void tooLargeIndex() {
    IllegalArgumentException e = assertThrows(
        IllegalArgumentException.class, () -> RecordReader.open(new StringReader(""), InputFormat.TSV, "99999999999", "1", false));
    assertEquals("key column index 99999999999 is too large", e.getMessage());
  }

  @Test
  void headerWithoutTheNamedColumnFailsOnOpen() {
    TrackingReader in = new TrackingReader("\n\nid\tname\nk\tv\n");
    InputFormatException e =
        assertThrows(InputFormatException.class, () -> RecordReader.open(in, InputFormat.TSV, "id", "value", true));
    assertEquals("line 3: the header has no column named 'value' for the value (it has 'id', 'name')", e.getMessage());
    assertEquals(3, e.lineNumber());
    assertTrue(in.closed);
  }

  @Test
  void headerWithTheNameTwiceIsAmbiguous() {
    InputFormatException e = assertThrows(
        InputFormatException.class, () -> RecordReader.open(new StringReader("id,v,id\n"), InputFormat.CSV, "id", "v", true));
    assertEquals(
        "line 1: the header names two columns 'id' (indexes 0 and 2), so the key column is ambiguous; give its index instead",
        e.getMessage());
  }

  @Test
  void longHeadersAreShortenedInMessages() {
    StringBuilder header = new StringBuilder();
    for (int i = 0; i < 25; i++) {
      header.append(i == 0 ? "" : ",").append("c").append(i);
    }
    InputFormatException e = assertThrows(
        InputFormatException.class, () -> RecordReader.open(new StringReader(header + "\n"), InputFormat.CSV, "x", "c1", true));
    assertTrue(e.getMessage().endsWith("'c18', 'c19', and 5 more)"), e.getMessage());
  }

  @Test
  void afterAnErrorTheReaderStops() {
    try (RecordReader reader = RecordReader.open(new StringReader("a\tb\nc\nd\te\n"), InputFormat.TSV, "0", "1", false)) {
      assertTrue(reader.next());
      InputFormatException e = assertThrows(InputFormatException.class, reader::next);
      assertEquals(2, e.lineNumber());
      IllegalStateException again = assertThrows(IllegalStateException.class, reader::next);
      assertSame(e, again.getCause());
      assertThrows(IllegalStateException.class, reader::key);
    }
  }

  @Test
  void closeClosesTheReaderOnceAndStopsReading() {
    TrackingReader in = new TrackingReader("a\tb\n");
    RecordReader reader = RecordReader.open(in, InputFormat.TSV, "0", "1", false);
    reader.close();
    reader.close();
    assertTrue(in.closed);
    assertThrows(IllegalStateException.class, reader::next);
  }

  @Test
  void ioErrorsAreUnchecked() {
    Reader failing = new Reader() {
      @Override
      public int read(char[] buf, int off, int len) throws IOException {
        throw new IOException("disk on fire");
      }

      @Override
      public void close() {}
    };
    for (InputFormat format : InputFormat.values()) {
      UncheckedIOException e =
          assertThrows(UncheckedIOException.class, () -> RecordReader.open(failing, format, "0", "1", false).next(), format.name());
      assertTrue(e.getMessage().contains("disk on fire"), e.getMessage());
    }
  }

  @Test
  void readersThatReturnFewCharsAtATimeAreFine() {
    Reader trickle = new Reader() {
      private final StringReader text = new StringReader("a,\"x\ny\"\r\nb,c\r\n");

      @Override
      public int read(char[] buf, int off, int len) throws IOException {
        return text.read(buf, off, Math.min(len, 1));
      }

      @Override
      public void close() {}
    };
    try (RecordReader reader = RecordReader.open(trickle, InputFormat.CSV, "0", "1", false)) {
      assertTrue(reader.next());
      assertArrayEquals("x\ny".getBytes(StandardCharsets.UTF_8), reader.value());
      assertTrue(reader.next());
      assertEquals(3, reader.lineNumber());
      assertFalse(reader.next());
    }
  }

  @Test
  void keysOnlyNeedsNothingButTheKeyColumn() {
    try (RecordReader reader = RecordReader.openKeys(new StringReader("a\nb\tignored\tmore\n\nc\n"), InputFormat.TSV, "0", false, false)) {
      assertTrue(reader.next());
      assertArrayEquals("a".getBytes(StandardCharsets.UTF_8), reader.key());
      IllegalStateException e = assertThrows(IllegalStateException.class, reader::value);
      assertTrue(e.getMessage().contains("keys only"), e.getMessage());
      assertTrue(reader.next());
      assertArrayEquals("b".getBytes(StandardCharsets.UTF_8), reader.key());
      assertTrue(reader.next());
      assertArrayEquals("c".getBytes(StandardCharsets.UTF_8), reader.key());
      assertEquals(4, reader.lineNumber());
      assertFalse(reader.next());
    }
  }

  @Test
  void keysOnlyInEveryFormat() {
    for (int bufferSize : Records.BUFFER_SIZES) {
      try (RecordReader csv = RecordReader.openKeys(Records.chunked(new StringReader("n,id\nx,\"k,1\"\n,k2\n"), bufferSize), InputFormat.CSV, "id", true, false)) {
        assertTrue(csv.next());
        assertArrayEquals("k,1".getBytes(StandardCharsets.UTF_8), csv.key());
        assertTrue(csv.next());
        assertArrayEquals("k2".getBytes(StandardCharsets.UTF_8), csv.key());
        assertFalse(csv.next());
      }
      try (RecordReader json =
          RecordReader.openKeys(Records.chunked(new StringReader("{\"key\":\"k1\"}\n{\"other\":[1],\"key\":7}\n"), bufferSize), InputFormat.JSON_LINES, "key", false, true)) {
        assertTrue(json.next());
        assertArrayEquals("k1".getBytes(StandardCharsets.UTF_8), json.key());
        assertTrue(json.next());
        assertArrayEquals("7".getBytes(StandardCharsets.UTF_8), json.key());
        assertFalse(json.next());
      }
    }
  }

  @Test
  void keysOnlyStillNeedsTheKey() {
    try (RecordReader reader = RecordReader.openKeys(new StringReader("a\tb\nc\n"), InputFormat.TSV, "1", false, false)) {
      assertTrue(reader.next());
      assertArrayEquals("b".getBytes(StandardCharsets.UTF_8), reader.key());
      InputFormatException e = assertThrows(InputFormatException.class, reader::next);
      assertEquals("line 2: 1 field, key column 1 needs at least 2", e.getMessage());
    }
    try (RecordReader reader = RecordReader.openKeys(new StringReader("{\"value\":\"v\"}\n"), InputFormat.JSON_LINES, "key", false, false)) {
      InputFormatException e = assertThrows(InputFormatException.class, reader::next);
      assertEquals("line 1: the object has no field 'key' (the key)", e.getMessage());
    }
    InputFormatException e = assertThrows(
        InputFormatException.class, () -> RecordReader.openKeys(new StringReader("id\tv\n"), InputFormat.TSV, "key", true, false));
    assertEquals("line 1: the header has no column named 'key' for the key (it has 'id', 'v')", e.getMessage());
  }

  @Test
  void nullArgumentsAreRejected() {
    assertThrows(NullPointerException.class, () -> RecordReader.open(null, InputFormat.TSV, "0", "1", false));
    assertThrows(NullPointerException.class, () -> RecordReader.open(new StringReader(""), null, "0", "1", false));
    assertThrows(NullPointerException.class, () -> RecordReader.open(new StringReader(""), InputFormat.TSV, null, "1", false));
  }
}
