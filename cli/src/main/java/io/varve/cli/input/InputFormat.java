package io.varve.cli.input;

import java.util.Locale;

/**
 * The text formats that {@link RecordReader} reads key/value records from.
 *
 * <p>An enum: immutable and safe to share between threads.
 */
public enum InputFormat {
  /**
   * Tab-separated fields, one record per line, with the escapes of PostgreSQL's {@code COPY} text
   * format: {@code \t}, {@code \n}, {@code \r} and {@code \\}.
   */
  TSV,
  /** Comma-separated fields as in RFC 4180: {@code "quoted"} fields may hold commas, quotes and line breaks. */
  CSV,
  /** One JSON object per line; the key and the value are top-level fields of that object. */
  JSON_LINES;

  /**
   * Guesses the format from a file name's extension, ignoring case: {@code .csv} is {@link #CSV};
   * {@code .jsonl}, {@code .ndjson} and {@code .json} are {@link #JSON_LINES}; anything else
   * (including {@code .tsv} and no extension) is {@link #TSV}.
   */
  public static InputFormat fromFileName(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.endsWith(".csv")) {
      return CSV;
    }
    if (lower.endsWith(".jsonl") || lower.endsWith(".ndjson") || lower.endsWith(".json")) {
      return JSON_LINES;
    }
    return TSV;
  }

  /**
   * Parses a format name as given on a command line, ignoring case: {@code tsv}, {@code csv}, or
   * one of {@code jsonl}, {@code ndjson}, {@code json}, {@code json-lines}, {@code json_lines}.
   *
   * @throws IllegalArgumentException naming the accepted values if {@code text} is none of them
   */
  public static InputFormat parse(String text) {
    switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "tsv":
        return TSV;
      case "csv":
        return CSV;
      case "jsonl":
      case "ndjson":
      case "json":
      case "json-lines":
      case "json_lines":
        return JSON_LINES;
      default:
        throw new IllegalArgumentException("unknown input format '" + text + "' (expected tsv, csv or jsonl)");
    }
  }
}
