package io.varve.benchmarks.ycsb;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The measurements YCSB prints with its text exporter (its default): lines such as {@code [READ],
 * AverageLatency(us), 370.3}, {@code [OVERALL], Throughput(ops/sec), 41234.5} and {@code [READ],
 * Return=OK, 100000}. Other lines are ignored. Immutable once parsed; thread-safe.
 */
final class YcsbOutput {
  static final String THROUGHPUT = "Throughput(ops/sec)";
  static final String AVERAGE = "AverageLatency(us)";
  static final String P99 = "99thPercentileLatency(us)";

  /** Section (READ, UPDATE, OVERALL, ...) to metric name to value. */
  private final Map<String, Map<String, String>> sections = new LinkedHashMap<>();

  private YcsbOutput() {}

  static YcsbOutput parse(Iterable<String> lines) {
    YcsbOutput output = new YcsbOutput();
    for (String line : lines) {
      if (!line.startsWith("[")) {
        continue;
      }
      int close = line.indexOf("], ");
      int comma = line.lastIndexOf(", ");
      if (close < 0 || comma <= close) {
        continue;
      }
      output.sections.computeIfAbsent(line.substring(1, close), s -> new LinkedHashMap<>())
          .put(line.substring(close + 3, comma).trim(), line.substring(comma + 2).trim());
    }
    return output;
  }

  /** Whether YCSB measured {@code section} (an operation, OVERALL, ...). */
  boolean has(String section) {
    return sections.containsKey(section);
  }

  /** A metric's value, or NaN when YCSB did not print it. */
  double value(String section, String metric) {
    String value = sections.getOrDefault(section, Map.of()).get(metric);
    try {
      return value == null ? Double.NaN : Double.parseDouble(value);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  double throughput() {
    return value("OVERALL", THROUGHPUT);
  }

  /** Operations (and data integrity checks, VERIFY) whose status was anything but OK. */
  long failures() {
    long failures = 0;
    for (Map<String, String> metrics : sections.values()) {
      for (Map.Entry<String, String> metric : metrics.entrySet()) {
        if (metric.getKey().startsWith("Return=") && !metric.getKey().equals("Return=OK")) {
          failures += Long.parseLong(metric.getValue());
        }
      }
    }
    return failures;
  }

  /**
   * Calls of the binding YCSB counted, whatever their status (a read-modify-write is a read and an
   * update): fewer than the phase asked for means that a client thread stopped early, which YCSB
   * does with exit status 0 when a binding fails to open.
   */
  long calls() {
    long calls = 0;
    for (Map.Entry<String, Map<String, String>> section : sections.entrySet()) {
      if (section.getKey().equals("VERIFY")) {
        continue;
      }
      for (Map.Entry<String, String> metric : section.getValue().entrySet()) {
        if (metric.getKey().startsWith("Return=")) {
          calls += Long.parseLong(metric.getValue());
        }
      }
    }
    return calls;
  }

  /** Operations (or checks) of {@code section} whose status was OK. */
  long succeeded(String section) {
    double ok = value(section, "Return=OK");
    return Double.isNaN(ok) ? 0 : (long) ok;
  }
}
