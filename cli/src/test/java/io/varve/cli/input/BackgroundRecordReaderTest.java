package io.varve.cli.input;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackgroundRecordReaderTest {
  private static String tsv(int records) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < records; i++) {
      text.append("k").append(i).append('\t').append("v").append(i).append('\n');
    }
    return text.toString();
  }

  private static List<Records.Rec> readAll(RecordReader reader) {
    List<Records.Rec> records = new ArrayList<>();
    while (reader.next()) {
      records.add(new Records.Rec(reader.key(), reader.value(), reader.lineNumber()));
    }
    return records;
  }

  @Test
  void givesTheSameRecordsAsADirectRead() {
    // Across batch boundaries: none, one, a batch less one, a batch, a batch and one, many batches.
    for (int n : new int[] {0, 1, 1023, 1024, 1025, 10_000}) {
      String text = tsv(n);
      List<Records.Rec> direct;
      try (RecordReader reader = RecordReader.open(new StringReader(text), InputFormat.TSV, "0", "1", false)) {
        direct = readAll(reader);
      }
      try (RecordReader reader =
          RecordReader.inBackground(RecordReader.open(new StringReader(text), InputFormat.TSV, "0", "1", false))) {
        assertEquals(direct, readAll(reader), "records: " + n);
        assertFalse(reader.next());
      }
    }
  }

  @Test
  void anErrorComesAfterTheRecordsBeforeItAndStopsTheReader() {
    String text = tsv(3000) + "no value column\n" + tsv(10);
    try (RecordReader reader =
        RecordReader.inBackground(RecordReader.open(new StringReader(text), InputFormat.TSV, "0", "1", false))) {
      for (int i = 0; i < 3000; i++) {
        assertTrue(reader.next());
        assertArrayEquals(("k" + i).getBytes(StandardCharsets.UTF_8), reader.key());
      }
      InputFormatException e = assertThrows(InputFormatException.class, reader::next);
      assertEquals("line 3001: 1 field, value column 1 needs at least 2", e.getMessage());
      assertThrows(IllegalStateException.class, reader::next);
    }
  }

  @Test
  void ioErrorsStayUnchecked() {
    Reader failing = new Reader() {
      @Override
      public int read(char[] buf, int off, int len) throws IOException {
        throw new IOException("disk on fire");
      }

      @Override
      public void close() {}
    };
    try (RecordReader reader = RecordReader.inBackground(RecordReader.open(failing, InputFormat.CSV, "0", "1", false))) {
      UncheckedIOException e = assertThrows(UncheckedIOException.class, reader::next);
      assertTrue(e.getMessage().contains("disk on fire"), e.getMessage());
    }
  }

  @Test
  void closingEarlyStopsTheThreadAndClosesTheSource() {
    boolean[] closed = {false};
    Reader endless = new Reader() {
      @Override
      public int read(char[] buf, int off, int len) {
        for (int i = 0; i < len; i++) {
          buf[off + i] = i % 4 == 3 ? '\n' : i % 4 == 1 ? '\t' : 'x';
        }
        return len;
      }

      @Override
      public void close() {
        closed[0] = true;
      }
    };
    RecordReader reader = RecordReader.inBackground(RecordReader.open(endless, InputFormat.TSV, "0", "1", false));
    assertTrue(reader.next());
    reader.close();
    assertTrue(closed[0], "the source is closed once the thread has stopped");
    assertTrue(Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().equals("varve-input") && t.isAlive()));
  }

  @Test
  void keysOnlyStaysKeysOnly() {
    try (RecordReader reader =
        RecordReader.inBackground(RecordReader.openKeys(new StringReader("a\nb\n"), InputFormat.TSV, "0", false, false))) {
      assertTrue(reader.next());
      assertArrayEquals("a".getBytes(StandardCharsets.UTF_8), reader.key());
      assertThrows(IllegalStateException.class, reader::value);
    }
  }
}
