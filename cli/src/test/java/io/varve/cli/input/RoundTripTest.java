package io.varve.cli.input;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Writes random records (tabs, line breaks, quotes, backslashes, non-ASCII, empty strings) in
 * each format with a small writer of its own, reads them back with every test buffer size, and
 * compares with the records written, line numbers included.
 */
class RoundTripTest {
  /** Fixed so that a failure can be replayed; override with -Dvarve.test.seed=N to explore. */
  private static final long SEED = Long.getLong("varve.test.seed", 0x5EED_CAFEL);

  private static final String[] PIECES = {
    "a", "b", "Z", "0", "7", " ", "-", "\t", "\n", "\r", "\r\n", "\"", "\"\"", ",", "\\", "\\t", "\\n", "/",
    "{", "}", "[", ":", "\u0000", "\u001f", "\u007f", "é", "€", "日本", "\u00a0", "😀", "𝄞", "\ud7ff", "\ue000", "\uffff"
  };

  private final Random random = new Random(SEED);

  @Test
  void tsv() {
    System.out.println("RoundTripTest seed " + SEED + " (replay with -Dvarve.test.seed=" + SEED + ")");
    for (int round = 0; round < 300; round++) {
      delimited(false);
    }
  }

  @Test
  void csv() {
    System.out.println("RoundTripTest seed " + SEED + " (replay with -Dvarve.test.seed=" + SEED + ")");
    for (int round = 0; round < 300; round++) {
      delimited(true);
    }
  }

  @Test
  void jsonLines() {
    System.out.println("RoundTripTest seed " + SEED + " (replay with -Dvarve.test.seed=" + SEED + ")");
    for (int round = 0; round < 300; round++) {
      jsonRound();
    }
  }

  @Test
  void corruptedInputsFailOnlyWithInputFormatExceptionAndAlikeForEveryBufferSize() {
    System.out.println("RoundTripTest seed " + SEED + " (replay with -Dvarve.test.seed=" + SEED + ")");
    String[] noise = {"\"", "\\", "\t", ",", "\n", "\r", "{", "}", "[", "]", ":", "u", "\ud83d", "1", "e", "-", "."};
    for (int round = 0; round < 600; round++) {
      InputFormat format = InputFormat.values()[round % 3];
      String text = format == InputFormat.JSON_LINES ? jsonRound() : delimited(format == InputFormat.CSV);
      StringBuilder broken = new StringBuilder(text);
      for (int edits = 1 + random.nextInt(3); edits > 0 && broken.length() > 0; edits--) {
        int at = random.nextInt(broken.length());
        if (random.nextBoolean()) {
          broken.deleteCharAt(at);
        } else {
          broken.insert(at, noise[random.nextInt(noise.length)]);
        }
      }
      String input = broken.toString();
      String key = format == InputFormat.JSON_LINES ? "k" : "0";
      String value = format == InputFormat.JSON_LINES ? "v" : "1";
      List<Records.Rec> first = null;
      InputFormatException firstError = null;
      boolean encodable = StandardCharsets.UTF_8.newEncoder().canEncode(input);
      for (int size : Records.BUFFER_SIZES) {
        for (boolean bytes : new boolean[] {false, true}) {
          if (bytes && !encodable) {
            continue;
          }
          List<Records.Rec> records = null;
          InputFormatException error = null;
          try {
            records = Records.read(input, format, key, value, false, size, true, bytes);
          } catch (InputFormatException e) {
            error = e;
          }
          if (size == Records.BUFFER_SIZES[0] && !bytes) {
            first = records;
            firstError = error;
            continue;
          }
          String context = "input: " + input + (bytes ? " as bytes" : " as chars") + ", buffer size " + size;
          assertEquals(first, records, context);
          assertEquals(firstError == null, error == null, context);
          if (error != null) {
            // As bytes, JSON lines are read by Jackson's UTF-8 parser, whose columns count bytes.
            if (!bytes || format != InputFormat.JSON_LINES || input.chars().allMatch(c -> c < 0x80)) {
              assertEquals(firstError.getMessage(), error.getMessage(), context);
            } else {
              assertEquals(firstError.lineNumber(), error.lineNumber(), context);
            }
          }
        }
      }
    }
  }

  private String randomString() {
    int pieces = random.nextInt(10) == 0 ? 0 : random.nextInt(random.nextInt(10) == 0 ? 60 : 6);
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < pieces; i++) {
      // Plain ASCII letters most of the time, like real data; the odd chars often enough to matter.
      s.append(random.nextBoolean() ? PIECES[random.nextInt(5)] : PIECES[random.nextInt(PIECES.length)]);
    }
    return s.toString();
  }

  private String delimited(boolean csv) {
    int columns = 2 + random.nextInt(3);
    int keyColumn = random.nextInt(columns);
    int valueColumn = random.nextInt(4) == 0 ? keyColumn : random.nextInt(columns);
    boolean header = random.nextBoolean();
    boolean byName = header && random.nextBoolean();
    StringBuilder text = new StringBuilder();
    List<Records.Rec> expected = new ArrayList<>();
    long line = 1;
    if (header) {
      List<String> names = new ArrayList<>();
      for (int c = 0; c < columns; c++) {
        names.add("col " + c + (c % 2 == 0 ? "\t,\"é" : ""));
      }
      line += writeRow(text, names, csv);
    }
    int records = random.nextInt(5) == 0 ? random.nextInt(2) : random.nextInt(40);
    for (int r = 0; r < records; r++) {
      while (random.nextInt(8) == 0) {
        text.append(random.nextBoolean() ? "\n" : "\r\n");
        line++;
      }
      List<String> row = new ArrayList<>();
      for (int c = 0; c < columns; c++) {
        row.add(randomString());
      }
      String value = row.get(valueColumn);
      expected.add(Records.rec(row.get(keyColumn), value, line));
      line += writeRow(text, row, csv);
    }
    if (text.length() > 0 && random.nextInt(4) == 0) {
      // No line ending after the last line.
      text.setLength(text.length() - (text.charAt(text.length() - 2) == '\r' ? 2 : 1));
    }
    String keySpec = byName ? "col " + keyColumn + (keyColumn % 2 == 0 ? "\t,\"é" : "") : Integer.toString(keyColumn);
    String valueSpec = byName ? "col " + valueColumn + (valueColumn % 2 == 0 ? "\t,\"é" : "") : Integer.toString(valueColumn);
    InputFormat format = csv ? InputFormat.CSV : InputFormat.TSV;
    assertEquals(expected, Records.read(text.toString(), format, keySpec, valueSpec, header), () -> "input: " + text);
    return text.toString();
  }

  /** Appends one row and its line ending; returns the number of lines it took. */
  private int writeRow(StringBuilder text, List<String> row, boolean csv) {
    int lines = 1;
    for (int c = 0; c < row.size(); c++) {
      if (c > 0) {
        text.append(csv ? ',' : '\t');
      }
      String field = row.get(c);
      if (csv) {
        lines += writeCsvField(text, field);
      } else {
        writeTsvField(text, field);
      }
    }
    text.append(random.nextBoolean() ? "\n" : "\r\n");
    return lines;
  }

  private static void writeTsvField(StringBuilder text, String field) {
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      switch (c) {
        case '\\':
          text.append("\\\\");
          break;
        case '\t':
          text.append("\\t");
          break;
        case '\n':
          text.append("\\n");
          break;
        case '\r':
          text.append("\\r");
          break;
        default:
          text.append(c);
      }
    }
  }

  private int writeCsvField(StringBuilder text, String field) {
    boolean quote = random.nextInt(5) == 0;
    for (int i = 0; i < field.length() && !quote; i++) {
      char c = field.charAt(i);
      quote = c == ',' || c == '"' || c == '\n' || c == '\r';
    }
    if (!quote) {
      text.append(field);
      return 0;
    }
    int lines = 0;
    text.append('"');
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      text.append(c);
      if (c == '"') {
        text.append('"');
      } else if (c == '\n' || c == '\r' && (i + 1 == field.length() || field.charAt(i + 1) != '\n')) {
        // Commons CSV counts a lone CR as a line end, in quotes too.
        lines++;
      }
    }
    text.append('"');
    return lines;
  }

  private String jsonRound() {
    String[] names = {"k", "value", "k\u00e9y", "\"q\"", "a\\b", "😀", "line\nbreak"};
    String keyField = names[random.nextInt(names.length)];
    String valueField = random.nextInt(5) == 0 ? keyField : names[random.nextInt(names.length)];
    StringBuilder text = new StringBuilder();
    List<Records.Rec> expected = new ArrayList<>();
    long line = 1;
    int records = random.nextInt(5) == 0 ? random.nextInt(2) : random.nextInt(40);
    for (int r = 0; r < records; r++) {
      while (random.nextInt(8) == 0) {
        text.append(random.nextBoolean() ? "\n" : random.nextBoolean() ? " \t\r\n" : "\r\n");
        line++;
      }
      String key = randomString();
      String valueText;
      String value;
      if (random.nextInt(3) == 0) {
        // Any value but a string, written compactly, as the reader gives it back with jsonText.
        do {
          value = compactJsonValue(0);
        } while (value.startsWith("\""));
        valueText = value;
      } else {
        value = randomString();
        valueText = jsonString(value);
      }
      List<String> members = new ArrayList<>();
      members.add(jsonString(keyField) + space() + ":" + space() + (keyField.equals(valueField) ? valueText : jsonString(key)));
      if (!keyField.equals(valueField)) {
        members.add(jsonString(valueField) + space() + ":" + space() + valueText);
      }
      for (int extra = random.nextInt(3); extra > 0; extra--) {
        members.add(jsonString("x" + extra) + ":" + randomJsonValue(0));
      }
      java.util.Collections.shuffle(members, random);
      text.append(space()).append('{').append(space());
      for (int m = 0; m < members.size(); m++) {
        text.append(m == 0 ? "" : "," + space()).append(members.get(m)).append(space());
      }
      text.append('}').append(space()).append(random.nextBoolean() ? "\n" : "\r\n");
      expected.add(Records.rec(keyField.equals(valueField) ? value : key, value, line));
      line++;
    }
    assertEquals(expected, Records.read(text.toString(), InputFormat.JSON_LINES, keyField, valueField, false, true),
        () -> "input: " + text);
    return text.toString();
  }

  /** A JSON value other than a string... or a string of letters, in the compact form that jsonText gives back. */
  private String compactJsonValue(int depth) {
    switch (random.nextInt(depth > 2 ? 4 : 6)) {
      case 0:
        return Integer.toString(random.nextInt(2000) - 1000);
      case 1:
        return (random.nextBoolean() ? "-" : "") + random.nextInt(100) + "." + random.nextInt(1000)
            + (random.nextBoolean() ? "e" + (random.nextInt(20) - 10) : "");
      case 2:
        return random.nextBoolean() ? (random.nextBoolean() ? "true" : "false") : "null";
      case 3:
        return "\"" + "abZ7".repeat(random.nextInt(3)) + "\"";
      case 4:
        {
          StringBuilder s = new StringBuilder("[");
          for (int i = random.nextInt(4); i > 0; i--) {
            s.append(compactJsonValue(depth + 1)).append(i > 1 ? "," : "");
          }
          return s.append(']').toString();
        }
      default:
        {
          StringBuilder s = new StringBuilder("{");
          for (int i = random.nextInt(4); i > 0; i--) {
            s.append("\"f").append(i).append("\":").append(compactJsonValue(depth + 1)).append(i > 1 ? "," : "");
          }
          return s.append('}').toString();
        }
    }
  }

  private String space() {
    switch (random.nextInt(6)) {
      case 0:
        return " ";
      case 1:
        return "\t ";
      default:
        return "";
    }
  }

  private String randomJsonValue(int depth) {
    switch (random.nextInt(depth > 2 ? 4 : 6)) {
      case 0:
        return Integer.toString(random.nextInt(2000) - 1000);
      case 1:
        return (random.nextBoolean() ? "-" : "") + random.nextInt(100) + "." + random.nextInt(1000) + (random.nextBoolean() ? "e" + (random.nextInt(20) - 10) : "");
      case 2:
        return random.nextBoolean() ? (random.nextBoolean() ? "true" : "false") : "null";
      case 3:
        return jsonString(randomString());
      case 4:
        {
          StringBuilder s = new StringBuilder("[").append(space());
          for (int i = random.nextInt(4); i > 0; i--) {
            s.append(randomJsonValue(depth + 1)).append(space()).append(i > 1 ? "," + space() : "");
          }
          return s.append(']').toString();
        }
      default:
        {
          StringBuilder s = new StringBuilder("{").append(space());
          for (int i = random.nextInt(4); i > 0; i--) {
            s.append(jsonString(randomString())).append(space()).append(':').append(space()).append(randomJsonValue(depth + 1))
                .append(space()).append(i > 1 ? "," + space() : "");
          }
          return s.append('}').toString();
        }
    }
  }

  /** A JSON string literal for {@code s}, choosing at random among the ways to escape each char. */
  private String jsonString(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean unicodeEscape = random.nextInt(8) == 0;
      if (c == '"' || c == '\\') {
        out.append(unicodeEscape ? unicode(c) : "\\" + c);
      } else if (c < 0x20) {
        String shortForm = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b" : c == '\f' ? "\\f" : null;
        out.append(shortForm != null && !unicodeEscape ? shortForm : unicode(c));
      } else if (c == '/' && random.nextBoolean()) {
        out.append("\\/");
      } else if (Character.isHighSurrogate(c)) {
        // A pair is escaped whole or not at all: half raw, half escaped is no valid JSON text.
        char low = s.charAt(++i);
        out.append(unicodeEscape ? unicode(c) + unicode(low) : "" + c + low);
      } else if (c >= 0x80 && unicodeEscape) {
        out.append(unicode(c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }

  private String unicode(char c) {
    String hex = String.format("%04x", (int) c);
    return "\\u" + (random.nextBoolean() ? hex : hex.toUpperCase(java.util.Locale.ROOT));
  }
}
