package io.varve.benchmarks.peers;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One dataset of the comparison: a base content, a 10 % batch (half replacements of existing
 * keys, half new keys) and the two merged. Named by a spec string so that child processes and JMH
 * forks rebuild the same records:
 *
 * <ul>
 *   <li>{@code synthetic:KEY_BYTES:VALUE_BYTES:RECORDS}, e.g. {@code synthetic:8:8:10000000};
 *   <li>{@code tsv:NAME:PATH}: rows of a tab-separated file with a header line, keyed by its first
 *       column, the value being the column named {@code summary}, possibly followed by a note in
 *       parentheses (a package-registry listing).
 *       Rows with a key seen before replace it.
 * </ul>
 *
 * Immutable; thread-safe.
 */
public final class Dataset {
  private final String spec;
  private final String name;
  private final RecordSet base;
  private final RecordSet batch;
  private final RecordSet merged;

  private Dataset(String spec, String name, RecordSet base, RecordSet batch, RecordSet merged) {
    this.spec = spec;
    this.name = name;
    this.base = base;
    this.batch = batch;
    this.merged = merged;
  }

  /** Parses a spec (see the class comment); reads the file of a {@code tsv} spec. */
  public static Dataset parse(String spec) throws IOException {
    String[] parts = spec.split(":", 4);
    if (parts[0].equals("synthetic") && parts.length == 4) {
      int keyBytes = Integer.parseInt(parts[1]);
      int valueBytes = Integer.parseInt(parts[2]);
      long records = Long.parseLong(parts[3]);
      return synthetic(spec, keyBytes, valueBytes, records);
    }
    if (parts[0].equals("tsv") && parts.length >= 3) {
      String path = spec.substring(("tsv:" + parts[1] + ":").length());
      return tsv(spec, parts[1], Path.of(path));
    }
    throw new IllegalArgumentException(
        "dataset spec '" + spec + "' is neither synthetic:KEY_BYTES:VALUE_BYTES:RECORDS nor tsv:NAME:PATH");
  }

  private static Dataset synthetic(String spec, int keyBytes, int valueBytes, long records) {
    long half = records / 20;
    long updatedFrom = records - half;
    String name = String.format(Locale.ROOT, "%dB/%dB x %s", keyBytes, valueBytes, Report.count(records));
    return new Dataset(
        spec,
        name,
        new SyntheticRecords(keyBytes, valueBytes, 0, records, Long.MAX_VALUE),
        new SyntheticRecords(keyBytes, valueBytes, updatedFrom, records + half, updatedFrom),
        new SyntheticRecords(keyBytes, valueBytes, 0, records + half, updatedFrom));
  }

  /**
   * The column named {@code summary}, or {@code summary} followed by a note in parentheses (npm's
   * listing: {@code summary (words in [tested here: ...] ...)}); -1 when none.
   */
  private static int summaryColumn(String[] columns) {
    for (int c = 0; c < columns.length; c++) {
      String column = columns[c].strip();
      if (column.equals("summary") || column.startsWith("summary (")) {
        return c;
      }
    }
    return -1;
  }

  private static Dataset tsv(String spec, String name, Path file) throws IOException {
    Map<String, String> rows = new LinkedHashMap<>();
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String header = in.readLine();
      if (header == null) {
        throw new IOException(file + ": empty, expected a header line");
      }
      int valueColumn = summaryColumn(header.split("\t", -1));
      if (valueColumn < 0) {
        throw new IOException(file + ": no column named 'summary' (or 'summary (a note)') in the header '" + header + "'");
      }
      for (String line; (line = in.readLine()) != null; ) {
        String[] fields = line.split("\t", -1);
        rows.put(fields[0], fields.length > valueColumn ? fields[valueColumn] : "");
      }
    }
    List<byte[]> keys = new ArrayList<>(rows.size());
    List<byte[]> values = new ArrayList<>(rows.size());
    rows.forEach((k, v) -> {
      keys.add(k.getBytes(StandardCharsets.UTF_8));
      values.add(v.getBytes(StandardCharsets.UTF_8));
    });
    List<byte[]> batchKeys = new ArrayList<>();
    List<byte[]> batchValues = new ArrayList<>();
    List<byte[]> mergedValues = new ArrayList<>(values);
    List<byte[]> insertedKeys = new ArrayList<>();
    for (int r = 0; r < keys.size(); r++) {
      if (r % 20 == 0) {
        byte[] updated = (new String(values.get(r), StandardCharsets.UTF_8) + " (updated)").getBytes(StandardCharsets.UTF_8);
        batchKeys.add(keys.get(r));
        batchValues.add(updated);
        mergedValues.set(r, updated);
      } else if (r % 20 == 10) {
        byte[] inserted = (new String(keys.get(r), StandardCharsets.UTF_8) + "\u00A7new").getBytes(StandardCharsets.UTF_8);
        batchKeys.add(inserted);
        batchValues.add(values.get(r));
        insertedKeys.add(inserted);
      }
    }
    List<byte[]> mergedKeys = new ArrayList<>(keys);
    mergedKeys.addAll(insertedKeys);
    for (int r = 10; r < keys.size(); r += 20) {
      mergedValues.add(values.get(r));
    }
    return new Dataset(
        spec,
        name,
        new ExplicitRecords(keys.toArray(byte[][]::new), values.toArray(byte[][]::new)),
        new ExplicitRecords(batchKeys.toArray(byte[][]::new), batchValues.toArray(byte[][]::new)),
        new ExplicitRecords(mergedKeys.toArray(byte[][]::new), mergedValues.toArray(byte[][]::new)));
  }

  /** The spec this dataset was parsed from. */
  public String spec() {
    return spec;
  }

  /** A short name for tables, e.g. {@code 8B/8B x 10^7} or {@code pypi}. */
  public String name() {
    return name;
  }

  /** The content a store is first built from. */
  public RecordSet base() {
    return base;
  }

  /** The 10 % batch: replacements of existing keys and new keys, half each. */
  public RecordSet batch() {
    return batch;
  }

  /** The base with the batch applied. */
  public RecordSet merged() {
    return merged;
  }
}
