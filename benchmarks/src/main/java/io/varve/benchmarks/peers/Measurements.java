package io.varve.benchmarks.peers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The comparison's raw results: rows of (dataset, system, metric, value), appended to a
 * tab-separated file as they are measured so that a failure late in the run loses nothing and the
 * report can be rewritten from the file. Not thread-safe.
 */
final class Measurements {
  static final String HEADER = "dataset\tsystem\tmetric\tvalue";
  private final Path file;
  private final Map<String, Map<String, Map<String, String>>> values = new LinkedHashMap<>();
  private final Set<String> systems = new LinkedHashSet<>();

  private Measurements(Path file) {
    this.file = file;
  }

  /** Starts a new file (replacing an old one). */
  static Measurements create(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, HEADER + "\n", StandardCharsets.UTF_8);
    return new Measurements(file);
  }

  /** Reads a file written by an earlier run; {@link #put} appends to it. */
  static Measurements read(Path file) throws IOException {
    Measurements measurements = new Measurements(file);
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    if (lines.isEmpty() || !lines.get(0).equals(HEADER)) {
      throw new IOException(file + ": expected the header '" + HEADER + "'");
    }
    for (String line : lines.subList(1, lines.size())) {
      String[] fields = line.split("\t", 4);
      if (fields.length == 4) {
        measurements.remember(fields[0], fields[1], fields[2], fields[3]);
      }
    }
    return measurements;
  }

  /** Records one value (tabs and newlines in it become spaces). */
  void put(String dataset, String system, String metric, Object value) throws IOException {
    String text = String.valueOf(value).replaceAll("[\t\r\n]+", " ");
    remember(dataset, system, metric, text);
    Files.writeString(
        file, dataset + "\t" + system + "\t" + metric + "\t" + text + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
  }

  private void remember(String dataset, String system, String metric, String value) {
    systems.add(system);
    values.computeIfAbsent(dataset, d -> new LinkedHashMap<>()).computeIfAbsent(system, s -> new LinkedHashMap<>()).put(metric, value);
  }

  /** Dataset names in the order measured. */
  List<String> datasets() {
    return new ArrayList<>(values.keySet());
  }

  /** System names in the order measured. */
  List<String> systems() {
    return new ArrayList<>(systems);
  }

  /** A metric's text, or null when not measured. */
  String text(String dataset, String system, String metric) {
    return values.getOrDefault(dataset, Map.of()).getOrDefault(system, Map.of()).get(metric);
  }

  /** A metric as a number, or NaN when not measured or not a number. */
  double number(String dataset, String system, String metric) {
    String text = text(dataset, system, metric);
    if (text == null) {
      return Double.NaN;
    }
    try {
      return Double.parseDouble(text);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }
}
