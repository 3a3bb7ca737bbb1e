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
import java.io.PushbackInputStream;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * JSON lines, parsed by Jackson's streaming parser ({@link RecordReader} gives the rules). Jackson
 * reads a stream of JSON values; the line rules (one object per line, nothing else on it) are
 * checked here from the places of the tokens. Not thread-safe.
 */
final class JsonLinesRecordReader extends RecordReader {
  /**
   * One factory for every reader (a factory is thread-safe once configured). Strings as long as a
   * record may hold (Jackson's default stops at 20 million chars); nesting as deep as Jackson's
   * default allows, which is what bounds a hostile line's cost.
   */
  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
          .build();

  private static final String UNCLOSED_STRING = "Unexpected end-of-input in VALUE_STRING";
  /** What Jackson reads to guess the encoding. */
  private static final int SNIFFED_BYTES = 4;

  private final JsonParser parser;
  private final String keyField;
  private final String valueField;
  private final boolean jsonText;
  private final boolean keysOnly;
  /** The line the last object ended on: the next must start on a later one. */
  private long lastLine;

  private JsonLinesRecordReader(Closeable source, JsonParser parser, String keyField, String valueField, boolean jsonText, boolean keysOnly) {
    super(source, keysOnly);
    this.parser = parser;
    this.keyField = keyField;
    this.valueField = valueField;
    this.jsonText = jsonText;
    this.keysOnly = keysOnly;
  }

  /** Over chars: Jackson's columns count chars. */
  static JsonLinesRecordReader overChars(Reader in, String keyField, String valueField, boolean jsonText, boolean keysOnly) {
    try {
      return new JsonLinesRecordReader(in, FACTORY.createParser(in), keyField, valueField, jsonText, keysOnly);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Over bytes, checked as strict UTF-8 before Jackson's UTF-8 parser reads them, which spares
   * decoding the whole input to chars; Jackson's columns then count bytes.
   */
  static JsonLinesRecordReader overBytes(InputStream in, String keyField, String valueField, boolean jsonText, boolean keysOnly) {
    PushbackInputStream text = new PushbackInputStream(new Utf8InputStream(in), SNIFFED_BYTES);
    try {
      refuseNulInSniffedBytes(text);
      return new JsonLinesRecordReader(text, FACTORY.createParser(text), keyField, valueField, jsonText, keysOnly);
    } catch (IOException e) {
      InputFormatException notText = notText(e, 1);
      throw notText != null ? notText : new UncheckedIOException(e);
    }
  }

  /**
   * Jackson guesses UTF-16 or UTF-32 from a zero byte among the first four, and would then report
   * a NUL byte there as garbled text; JSON text holds no NUL, so it is refused here, by its place.
   */
  private static void refuseNulInSniffedBytes(PushbackInputStream text) throws IOException {
    byte[] first = new byte[SNIFFED_BYTES];
    int n = 0;
    for (int read; n < first.length && (read = text.read(first, n, first.length - n)) > 0; ) {
      n += read;
    }
    int line = 1;
    int lineStart = 0;
    for (int i = 0; i < n; i++) {
      if (first[i] == 0) {
        throw new InputFormatException(line, i - lineStart + 1, "a NUL byte (0x00) is not allowed in JSON text");
      }
      if (first[i] == '\n') {
        line++;
        lineStart = i + 1;
      }
    }
    text.unread(first, 0, n);
  }

  @Override
  boolean advance() {
    key = null;
    value = null;
    try {
      JsonToken token = parser.nextToken();
      if (token == null) {
        return false;
      }
      JsonLocation start = parser.currentTokenLocation();
      recordLine = start.getLineNr();
      if (recordLine == lastLine) {
        throw new InputFormatException(
            recordLine, start.getColumnNr(), "expected the end of the line after the object, found " + shown(token));
      }
      if (token != JsonToken.START_OBJECT) {
        throw new InputFormatException(
            recordLine, start.getColumnNr(), "expected '{' to start the line's JSON object, found " + shown(token));
      }
      readObject();
      lastLine = parser.currentLocation().getLineNr();
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
      long line = at == null ? recordLine : at.getLineNr();
      String what = e.getOriginalMessage();
      if (recordLine > 0 && line > recordLine && lastLine < recordLine) {
        // Jackson went on reading the next lines for the rest of an object that a line did not close.
        throw new InputFormatException(recordLine, "the object is not closed on its line (" + firstLine(what) + ")");
      }
      throw at == null ? new InputFormatException(line, firstLine(what)) : new InputFormatException(line, at.getColumnNr(), firstLine(what));
    } catch (IOException e) {
      InputFormatException notText = notText(e, recordLine);
      if (notText != null) {
        throw notText;
      }
      throw new UncheckedIOException("reading line " + parser.currentLocation().getLineNr() + ": " + e.getMessage(), e);
    }
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
        throw new InputFormatException(at.getLineNr(), at.getColumnNr(), "field '" + name + "' appears twice in the object");
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
          at.getLineNr(), at.getColumnNr(),
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
