package io.varve.cli.input;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * TSV and CSV read as bytes, their plain lines split by {@link PlainLines}, answer exactly as
 * Commons CSV alone over chars: the same records, line numbers and errors, on random inputs mixing plain lines, escapes,
 * escaped line breaks, quoted fields (with line breaks and doubled quotes), LF, CR and CRLF, blank
 * lines, missing columns, non-ASCII text and a header.
 */
class PlainLinesTest {
  private static final long SEED = 0x7515EEDL;
  private static final String[] PIECES = {
    "a", "bc", "κλ", "🔑", "\t", "\t", ",", ",", "\n", "\r\n", "\r", "\\", "\\t", "\\\n", "\\\r\n", "x y", "", "\\\\",
    "\"", "\"q\"", "\"a,b\"", "\"l\nm\"", "\"\"\"\""
  };

  @Test
  void plainLinesAnswerAsCommonsCsvAlone() {
    answerAlike(false);
    answerAlike(true);
  }

  private static void answerAlike(boolean csv) {
    System.out.println("PlainLinesTest seed=" + SEED);
    SplittableRandom random = new SplittableRandom(SEED);
    for (int round = 0; round < 3000; round++) {
      StringBuilder text = new StringBuilder();
      int pieces = random.nextInt(60);
      // Most inputs start with a long plain stretch, so that the switch to Commons CSV is exercised mid-input.
      int plainLines = random.nextInt(4) == 0 ? 0 : random.nextInt(2000);
      for (int i = 0; i < plainLines; i++) {
        text.append("k").append(i).append(csv ? ',' : '\t').append("v").append(random.nextInt(1000)).append(random.nextBoolean() ? "\n" : "\r\n");
      }
      for (int i = 0; i < pieces; i++) {
        text.append(PIECES[random.nextInt(random.nextInt(4) == 0 ? PIECES.length : 11)]);
      }
      boolean header = random.nextInt(5) == 0;
      String keyColumn = header ? "k0" : "0";
      String valueColumn = header ? "v" + 0 : Integer.toString(random.nextInt(3));
      String input = (header ? (csv ? "k0,v0\n" : "k0\tv0\n") : "") + text;
      assertEquals(
          read(input, csv, keyColumn, valueColumn, header, false),
          read(input, csv, keyColumn, valueColumn, header, true),
          (csv ? "CSV" : "TSV") + " round " + round + ": " + input);
    }
  }

  /** What a reader makes of {@code input}: one line per record (line, key, value), then its error if any. */
  private static List<String> read(String input, boolean csv, String keyColumn, String valueColumn, boolean header, boolean plainLines) {
    List<String> seen = new ArrayList<>();
    try (RecordReader records =
        plainLines
            ? new DelimitedRecordReader(
                new Utf8InputStream(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8))), csv, keyColumn, valueColumn, header,
                false)
            : new DelimitedRecordReader(new InputText(new StringReader(input)), csv, keyColumn, valueColumn, header, false, true)) {
      while (records.next()) {
        seen.add(records.lineNumber() + " " + new String(records.key(), StandardCharsets.UTF_8) + " -> " + new String(records.value(), StandardCharsets.UTF_8));
      }
    } catch (RuntimeException e) {
      seen.add(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
    return seen;
  }
}
