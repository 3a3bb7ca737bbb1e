package io.varve.cli;

import io.varve.cli.input.InputFormat;
import io.varve.cli.input.RecordReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** How build and merge read TSV, CSV or JSON-lines records: the options, and opening a file with them. Not thread-safe. */
final class InputOptions {
  @Option(
      names = "--format",
      paramLabel = "tsv|csv|jsonl",
      converter = FormatConverter.class,
      description = "input format (default: from the file name: .csv, .jsonl/.ndjson/.json, else tsv)")
  InputFormat format;

  @Option(
      names = "--key-column",
      paramLabel = "C",
      description = "key column: a 0-based index, or a name with --header; in JSON lines a field (default 0 / key)")
  String keyColumn;

  @Option(names = "--value-column", paramLabel = "C", description = "value column (default 1 / value)")
  String valueColumn;

  @Option(names = "--header", description = "the first TSV/CSV line names the columns")
  boolean header;

  @Option(
      names = "--json-text",
      description = "JSON lines: store a key or value that is not a JSON string (a number, true, false, null, an object, an array) as its JSON text, objects and arrays written compactly; without it such a field stops the command, naming its file and line")
  boolean jsonText;

  /** The format of {@code file}: the one given, or the one its name suggests. */
  InputFormat formatOf(String file) {
    return format != null ? format : InputFormat.fromFileName(file);
  }

  /** Opens {@code file} ({@code -}: {@code stdin}) as records, or as keys alone. */
  RecordReader open(String file, InputStream stdin, boolean keysOnly) throws IOException {
    InputFormat fileFormat = formatOf(file);
    boolean json = fileFormat == InputFormat.JSON_LINES;
    String key = keyColumn != null ? keyColumn : json ? "key" : "0";
    String value = valueColumn != null ? valueColumn : json ? "value" : "1";
    InputStream bytes = file.equals("-") ? stdin : Files.newInputStream(Path.of(file));
    return keysOnly
        ? RecordReader.openKeys(bytes, fileFormat, key, header, jsonText)
        : RecordReader.open(bytes, fileFormat, key, value, header, jsonText);
  }

  /** {@code stdin} for {@code -}, else the file as given. */
  static String label(String file) {
    return "-".equals(file) ? "stdin" : file;
  }

  /** Input format names, in any case. */
  static final class FormatConverter implements ITypeConverter<InputFormat> {
    @Override
    public InputFormat convert(String value) {
      try {
        return InputFormat.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
