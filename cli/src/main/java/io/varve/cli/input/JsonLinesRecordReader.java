package io.varve.cli.input;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.ByteArrayInputStream;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * JSON lines ({@link RecordReader} gives the rules): over bytes, the simple lines that machines
 * write are read in place ({@link SimpleJsonLine}) until one is not; Jackson's streaming parser
 * reads the rest, a stream of JSON values whose line rules (one object per line, nothing else on
 * it) are checked here from the places of the tokens. Not thread-safe.
 */
final class JsonLinesRecordReader extends RecordReader {
  /**
   * One factory for every reader (a factory is thread-safe once configured). Strings and names as
   * long as a record may hold (Jackson's defaults stop at 20 million and 50,000 chars, where
   * {@link SimpleJsonLine} has no limit); nesting as deep as Jackson's default allows, which is
   * what bounds a hostile line's cost.
   */
  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).maxNameLength(Integer.MAX_VALUE).build())
          .build();

  private static final String UNCLOSED_STRING = "Unexpected end-of-input in VALUE_STRING";
  private static final byte[] UTF8_BYTE_ORDER_MARK = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  /** Over bytes, the lines, until one that {@link #simple} cannot read; then, and over chars, null. */
  private ByteLines lines;
  private final SimpleJsonLine simple;
  /** Jackson: over chars from the start; over bytes from the first line that is not simple, once there. */
  private JsonParser parser;
  /** Lines read before {@link #parser} took over: Jackson numbers its lines from there. */
  private long lineOffset;
  /** What Jackson's columns on its first line count before the input: the bytes of the mark put there. */
  private int firstLineShift;
  private final String keyField;
  private final String valueField;
  private final boolean jsonText;
  private final boolean keysOnly;
  /** The line the last object ended on: the next must start on a later one. */
  private long lastLine;

  private JsonLinesRecordReader(
      Closeable source, JsonParser parser, ByteLines lines, String keyField, String valueField, boolean jsonText, boolean keysOnly) {
    super(source, keysOnly);
    this.parser = parser;
    this.lines = lines;
    // Names that JSON must escape never stand as such in a simple line: Jackson reads from the first line.
    this.simple = lines != null && SimpleJsonLine.canMatch(keyField, valueField) ? new SimpleJsonLine(keyField, valueField, keysOnly) : null;
    this.keyField = keyField;
    this.valueField = valueField;
    this.jsonText = jsonText;
    this.keysOnly = keysOnly;
  }

  /** Over chars: Jackson reads every line; its columns count chars. */
  static JsonLinesRecordReader overChars(Reader in, String keyField, String valueField, boolean jsonText, boolean keysOnly) {
    try {
      return new JsonLinesRecordReader(in, FACTORY.createParser(in), null, keyField, valueField, jsonText, keysOnly);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Over UTF-8 bytes already checked ({@link Utf8InputStream}): simple lines are read in place
   * ({@link SimpleJsonLine}); from the first other line on, Jackson's UTF-8 parser reads the bytes,
   * which spares decoding them to chars. Its columns then count bytes.
   */
  static JsonLinesRecordReader overBytes(InputStream checked, String keyField, String valueField, boolean jsonText, boolean keysOnly) {
    return new JsonLinesRecordReader(checked, null, new ByteLines(checked), keyField, valueField, jsonText, keysOnly);
  }

  /**
   * Jackson's parser over the bytes {@code in}, which start on the line after {@code lineOffset}.
   * They go behind a byte order mark, which tells Jackson they are UTF-8: otherwise it guesses
   * UTF-16 or UTF-32 from a zero byte among the first four and garbles a NUL byte's error.
   */
  private static JsonParser jacksonOver(InputStream in, long lineOffset) {
    try {
      return FACTORY.createParser(new SequenceInputStream(new ByteArrayInputStream(UTF8_BYTE_ORDER_MARK), in));
    } catch (IOException e) {
      InputFormatException notText = notText(e, lineOffset + 1);
      throw notText != null ? notText : new UncheckedIOException(e);
    }
  }

  @Override
  boolean advance() {
    key = null;
    value = null;
    if (lines != null && nextSimpleLine()) {
      return true;
    }
    return parser != null && nextParsedLine();
  }

  /**
   * Reads simple lines: true for a record; false at the end of the input, or once Jackson has taken
   * over at a line that is not simple.
   */
  private boolean nextSimpleLine() {
    try {
      while (lines.next()) {
        recordLine = lines.linesRead();
        int found = simple == null ? SimpleJsonLine.NOT_SIMPLE : simple.read(lines.bytes(), lines.start(), lines.end());
        if (found == SimpleJsonLine.RECORD) {
          key = simple.key();
          value = simple.value();
          return true;
        }
        if (found == SimpleJsonLine.NOT_SIMPLE) {
          lineOffset = recordLine - 1;
          InputStream rest = lines.rest();
          lines = null;
          parser = jacksonOver(rest, lineOffset);
          firstLineShift = UTF8_BYTE_ORDER_MARK.length;
          return false;
        }
      }
      lines = null;
      return false;
    } catch (IOException e) {
      InputFormatException notText = notText(e, recordLine);
      throw notText != null ? notText : new UncheckedIOException("reading line " + (recordLine + 1) + ": " + e.getMessage(), e);
    }
  }

  /** The next record, read by Jackson. */
  private boolean nextParsedLine() {
    try {
      JsonToken token = parser.nextToken();
      if (token == null) {
        return false;
      }
      JsonLocation start = parser.currentTokenLocation();
      recordLine = line(start);
      if (recordLine == lastLine) {
        throw new InputFormatException(
            recordLine, column(start), "expected the end of the line after the object, found " + shown(token));
      }
      if (token != JsonToken.START_OBJECT) {
        throw new InputFormatException(
            recordLine, column(start), "expected '{' to start the line's JSON object, found " + shown(token));
      }
      readObject();
      lastLine = line(parser.currentLocation());
      if (lastLine != recordLine) {
        throw new InputFormatException(recordLine, "the object goes on past the end of its line: JSON lines hold one object per line");
      }
      if (key == null) {
        throw new InputFormatException(recordLine, "the object has no field '" + keyField + "' (the key)");
      }
      if (value == null && !keysOnly) {
        throw new InputFormatException(recordLine, "the object has no field '" + valueField + "' (the value)");
      }
      return true;
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      long line = at == null ? recordLine : line(at);
      String what = e.getOriginalMessage();
      if (recordLine > 0 && line > recordLine && lastLine < recordLine) {
        // Jackson went on reading the next lines for the rest of an object that a line did not close.
        throw new InputFormatException(recordLine, "the object is not closed on its line (" + firstLine(what) + ")");
      }
      throw at == null ? new InputFormatException(line, firstLine(what)) : new InputFormatException(line, column(at), firstLine(what));
    } catch (IOException e) {
      InputFormatException notText = notText(e, recordLine);
      if (notText != null) {
        throw notText;
      }
      throw new UncheckedIOException("reading line " + line(parser.currentLocation()) + ": " + e.getMessage(), e);
    }
  }

  /** The input's line number of a place in Jackson's text. */
  private long line(JsonLocation at) {
    return lineOffset + at.getLineNr();
  }

  /** The column of a place in Jackson's text, less the byte order mark put before its first line. */
  private int column(JsonLocation at) {
    return at.getLineNr() == 1 ? at.getColumnNr() - firstLineShift : at.getColumnNr();
  }

  /** Reads the fields of the object whose '{' is the current token, through its '}'. */
  private void readObject() throws IOException {
    boolean same = keyField.equals(valueField);
    for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
      String name = parser.currentName();
      boolean isKey = name.equals(keyField);
      boolean isValue = !keysOnly && (same ? isKey : name.equals(valueField));
      if (isKey && key != null || isValue && value != null) {
        JsonLocation at = parser.currentTokenLocation();
        throw new InputFormatException(line(at), column(at), "field '" + name + "' appears twice in the object");
      }
      JsonToken fieldValue = parser.nextToken();
      if (isKey || isValue) {
        byte[] bytes = text(name, fieldValue);
        if (isKey) {
          key = bytes;
        }
        if (isValue) {
          value = bytes;
        }
      } else {
        parser.skipChildren();
      }
    }
  }

  /** The field's string as UTF-8, or (with {@code jsonText}) another value's JSON text. */
  private byte[] text(String field, JsonToken token) throws IOException {
    if (token == JsonToken.VALUE_STRING) {
      byte[] bytes = Utf8.encode(parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength());
      if (bytes == null) {
        throw unpaired(field);
      }
      return bytes;
    }
    if (!jsonText) {
      JsonLocation at = parser.currentTokenLocation();
      throw new InputFormatException(
          line(at), column(at),
          "field '" + field + "' is " + shown(token) + ", not a string: give --json-text to store the JSON text of values"
              + " that are not strings");
    }
    if (token.isScalarValue()) {
      return parser.getText().getBytes(StandardCharsets.UTF_8);
    }
    StringWriter json = new StringWriter();
    try (JsonGenerator generator = FACTORY.createGenerator(json)) {
      copyCurrentValue(generator);
    }
    return encode(field, json.toString());
  }

  /**
   * Writes the object or array that starts at the current token, compactly: numbers exactly as
   * written (Jackson's own copy rewrites {@code 2.5e-3} as {@code 0.0025}), strings re-escaped as
   * JSON needs and no more.
   */
  private void copyCurrentValue(JsonGenerator out) throws IOException {
    int depth = 0;
    do {
      JsonToken token = parser.currentToken();
      switch (token) {
        case START_OBJECT -> {
          out.writeStartObject();
          depth++;
        }
        case START_ARRAY -> {
          out.writeStartArray();
          depth++;
        }
        case END_OBJECT -> {
          out.writeEndObject();
          depth--;
        }
        case END_ARRAY -> {
          out.writeEndArray();
          depth--;
        }
        case FIELD_NAME -> out.writeFieldName(parser.currentName());
        case VALUE_STRING -> out.writeString(parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength());
        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> out.writeNumber(parser.getText());
        case VALUE_TRUE, VALUE_FALSE -> out.writeBoolean(token == JsonToken.VALUE_TRUE);
        case VALUE_NULL -> out.writeNull();
        default -> throw new IllegalStateException("unexpected JSON token " + token);
      }
    } while (depth > 0 && parser.nextToken() != null);
  }

  /** {@code text} as UTF-8; fails on an unpaired surrogate (a lone {@code \\uD800}), which UTF-8 cannot encode. */
  private byte[] encode(String field, String text) {
    byte[] bytes = Utf8.encode(text);
    if (bytes == null) {
      throw unpaired(field);
    }
    return bytes;
  }

  private InputFormatException unpaired(String field) {
    return new InputFormatException(recordLine, "field '" + field + "' holds an unpaired UTF-16 surrogate (not valid Unicode)");
  }

  /**
   * Jackson's message less what it adds for programmers (a second line, the redacted source), in
   * the words of its char parser where its byte parser names a token type instead.
   */
  private static String firstLine(String message) {
    int end = message.indexOf('\n');
    String line = end < 0 ? message : message.substring(0, end);
    int source = line.indexOf(" (start marker at [Source:");
    line = source < 0 ? line : line.substring(0, source);
    return line.startsWith(UNCLOSED_STRING) ? "Unexpected end-of-input: was expecting closing quote for a string value" : line;
  }

  private String shown(JsonToken token) {
    return switch (token) {
      case START_OBJECT -> "an object";
      case START_ARRAY -> "an array";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> token.asString();
      case VALUE_NULL -> "null";
      default -> "'" + token.asString() + "'";
    };
  }
}
