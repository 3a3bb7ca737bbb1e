package io.varve.examples.input;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;

/**
 * A hand-run throughput check, not a unit test: writes N records (16-byte keys, 8-byte values) as
 * TSV, CSV and JSON lines, then times reading each file end to end, UTF-8 decoding included, with
 * the command's strict decoder ({@link Utf8Reader}) and with the JDK's ({@code InputStreamReader}),
 * in alternating runs so that both see the same machine.
 *
 * <pre>
 * ./mvnw -q -B -pl examples -am verify -DskipTests
 * java -cp examples/target/classes:examples/target/test-classes \
 *     io.varve.examples.input.RecordReaderThroughput [records=10000000] [dir=/tmp/varve-input-bench] [runs=7]
 * </pre>
 */
final class RecordReaderThroughput {
  private RecordReaderThroughput() {}

  public static void main(String[] args) throws IOException {
    long records = args.length > 0 ? Long.parseLong(args[0].replace("_", "")) : 10_000_000L;
    Path dir = Paths.get(args.length > 1 ? args[1] : "/tmp/varve-input-bench");
    int runs = args.length > 2 ? Integer.parseInt(args[2]) : 7;
    Files.createDirectories(dir);
    for (InputFormat format : InputFormat.values()) {
      Path file = dir.resolve(records + "." + format.name().toLowerCase() + ".txt");
      if (!Files.exists(file)) {
        write(file, format, records);
      }
      String key = format == InputFormat.JSON_LINES ? "k" : "0";
      String value = format == InputFormat.JSON_LINES ? "v" : "1";
      double[] strict = new double[runs];
      double[] jdk = new double[runs];
      for (int run = 0; run < runs; run++) {
        strict[run] = read(file, format, key, value, records, true);
        jdk[run] = read(file, format, key, value, records, false);
      }
      Arrays.sort(strict);
      Arrays.sort(jdk);
      System.out.printf(
          "%-10s %,d records, %,d MB: Utf8Reader median %.2f M records/s (best %.2f), InputStreamReader median %.2f"
              + " (best %.2f): %.3fx; UTF-8 decoding alone: %.2f vs %.2f M lines/s%n",
          format, records, Files.size(file) >> 20, strict[runs / 2] / 1e6, strict[runs - 1] / 1e6, jdk[runs / 2] / 1e6,
          jdk[runs - 1] / 1e6, strict[runs / 2] / jdk[runs / 2], decodeOnly(file, records, true) / 1e6,
          decodeOnly(file, records, false) / 1e6);
    }
  }

  private static Reader open(Path file, boolean strict) throws IOException {
    return strict
        ? new Utf8Reader(Files.newInputStream(file))
        : new InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8);
  }

  private static void write(Path file, InputFormat format, long records) throws IOException {
    try (Writer out = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), 1 << 16)) {
      StringBuilder line = new StringBuilder(64);
      for (long i = 0; i < records; i++) {
        // Scrambled so that keys look like hashes rather than a counter.
        String key = String.format("%016x", i * 0x9E3779B97F4A7C15L).substring(0, 16);
        String value = String.format("%08d", i % 100_000_000);
        line.setLength(0);
        switch (format) {
          case TSV:
            line.append(key).append('\t').append(value);
            break;
          case CSV:
            line.append(key).append(',').append(value);
            break;
          default:
            line.append("{\"k\":\"").append(key).append("\",\"v\":\"").append(value).append("\"}");
        }
        out.append(line).append('\n');
      }
    }
  }

  /** Records per second for one full read. */
  private static double read(Path file, InputFormat format, String key, String value, long expected, boolean strict)
      throws IOException {
    long start = System.nanoTime();
    long count = 0;
    long bytes = 0;
    Reader in = open(file, strict);
    try (RecordReader reader = RecordReader.open(in, format, key, value, false)) {
      while (reader.next()) {
        bytes += reader.key().length + reader.value().length;
        count++;
      }
    }
    long nanos = System.nanoTime() - start;
    if (count != expected || bytes != expected * 24) {
      throw new AssertionError("read " + count + " records, " + bytes + " bytes");
    }
    return count * 1e9 / nanos;
  }

  /** Lines per second for only turning the file into chars: the floor under every format. */
  private static double decodeOnly(Path file, long lines, boolean strict) throws IOException {
    long start = System.nanoTime();
    char[] buf = new char[1 << 16];
    long chars = 0;
    try (Reader in = open(file, strict)) {
      for (int n; (n = in.read(buf)) >= 0; ) {
        chars += n;
      }
    }
    long nanos = System.nanoTime() - start;
    return chars > 0 ? lines * 1e9 / nanos : 0;
  }
}
