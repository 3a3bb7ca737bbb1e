package io.varve.cli.input;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * A hand-run A/B throughput check, not a unit test: parse-only throughput of the command's input
 * readers (this module's {@link RecordReader}, on Commons CSV and Jackson) against the hand-written
 * parsers they replaced, on the same files, in alternating runs of one JVM so that both see the
 * same machine. Both read the file's bytes as the command does (the old parsers through their
 * strict decoder; the new readers through {@link RecordReader#open(java.io.InputStream,
 * InputFormat, String, String, boolean, boolean)}, which parses JSON lines from checked bytes) and
 * copy out every key and value as a byte array, as a build does.
 *
 * <p>The old parsers are the classes of {@code io.varve.examples.input} as of the commit before
 * the command moved to {@code cli/}, compiled into a directory of their own:
 *
 * <pre>
 * git archive 375f0ae examples/src/main/java/io/varve/examples/input | tar -x -C /tmp/varve-old/src
 * javac -d /tmp/varve-old/classes --release 17 /tmp/varve-old/src/examples/src/main/java/io/varve/examples/input/*.java
 * ./mvnw -q -B -o test-compile -pl cli -am
 * java -Xmx2g -Dvarve.baseline=/tmp/varve-old/classes -cp "cli/target/classes:cli/target/test-classes:$(cat cp.txt)" \
 *     io.varve.cli.input.ParseThroughput [records=10000000] [dir=/tmp/varve-input-bench] [pairs=5]
 * </pre>
 *
 * <p>The old side is called through method handles held in static finals, which the JIT treats
 * as constants and inlines like direct calls. Each read is timed twice: wall-clock, and the CPU
 * time of the reading thread (every stage of both readers runs on it), which a machine shared with
 * other work disturbs far less; the ratios of both are printed.
 */
final class ParseThroughput {
  private static final MethodHandle OLD_DECODER;
  private static final MethodHandle OLD_OPEN;
  private static final MethodHandle OLD_NEXT;
  private static final MethodHandle OLD_KEY;
  private static final MethodHandle OLD_VALUE;
  private static final MethodHandle OLD_CLOSE;
  private static final Object[] OLD_FORMATS;
  private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

  static {
    try {
      String baseline = System.getProperty("varve.baseline");
      if (baseline == null) {
        throw new IllegalStateException("give -Dvarve.baseline=DIR, the old parsers' classes (see the class comment)");
      }
      ClassLoader old = new URLClassLoader(new URL[] {Path.of(baseline).toUri().toURL()}, ParseThroughput.class.getClassLoader());
      Class<?> reader = old.loadClass("io.varve.examples.input.RecordReader");
      Class<?> format = old.loadClass("io.varve.examples.input.InputFormat");
      Class<?> decoder = old.loadClass("io.varve.examples.input.Utf8Reader");
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      OLD_DECODER = lookup.findConstructor(decoder, MethodType.methodType(void.class, java.io.InputStream.class))
          .asType(MethodType.methodType(Reader.class, java.io.InputStream.class));
      OLD_OPEN = lookup.findStatic(reader, "open", MethodType.methodType(reader, Reader.class, format, String.class, String.class, boolean.class))
          .asType(MethodType.methodType(Object.class, Reader.class, Object.class, String.class, String.class, boolean.class));
      OLD_NEXT = lookup.findVirtual(reader, "next", MethodType.methodType(boolean.class)).asType(MethodType.methodType(boolean.class, Object.class));
      OLD_KEY = lookup.findVirtual(reader, "key", MethodType.methodType(byte[].class)).asType(MethodType.methodType(byte[].class, Object.class));
      OLD_VALUE = lookup.findVirtual(reader, "value", MethodType.methodType(byte[].class)).asType(MethodType.methodType(byte[].class, Object.class));
      OLD_CLOSE = lookup.findVirtual(reader, "close", MethodType.methodType(void.class)).asType(MethodType.methodType(void.class, Object.class));
      OLD_FORMATS = format.getEnumConstants();
    } catch (ReflectiveOperationException | IOException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private ParseThroughput() {}

  public static void main(String[] args) throws Throwable {
    long records = args.length > 0 ? Long.parseLong(args[0].replace("_", "")) : 10_000_000L;
    Path dir = Path.of(args.length > 1 ? args[1] : "/tmp/varve-input-bench");
    int pairs = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    Files.createDirectories(dir);
    System.out.printf("%s, %s %s, %d records per file, %d pairs (old, new) alternated%n",
        System.getProperty("java.vm.name"), System.getProperty("java.version"), System.getProperty("os.arch"), records, pairs);
    for (InputFormat format : InputFormat.values()) {
      Path file = dir.resolve(records + "." + format.name().toLowerCase(Locale.ROOT) + ".txt");
      if (!Files.exists(file)) {
        write(file, format, records);
      }
      String key = format == InputFormat.JSON_LINES ? "k" : "0";
      String value = format == InputFormat.JSON_LINES ? "v" : "1";
      double[][] old = new double[2][pairs];
      double[][] now = new double[2][pairs];
      double[][] ratio = new double[2][pairs];
      for (int pair = 0; pair < pairs; pair++) {
        double[] o = readOld(file, OLD_FORMATS[format.ordinal()], key, value, records);
        double[] n = readNew(file, format, key, value, records);
        for (int clock = 0; clock < 2; clock++) {
          old[clock][pair] = o[clock];
          now[clock][pair] = n[clock];
          ratio[clock][pair] = n[clock] / o[clock];
        }
        System.out.printf("  %-10s pair %d: wall-clock old %.2f, new %.2f M records/s (new/old %.3f); CPU old %.2f, new %.2f (%.3f)%n",
            format, pair + 1, o[0] / 1e6, n[0] / 1e6, ratio[0][pair], o[1] / 1e6, n[1] / 1e6, ratio[1][pair]);
      }
      for (int clock = 0; clock < 2; clock++) {
        Arrays.sort(old[clock]);
        Arrays.sort(now[clock]);
        Arrays.sort(ratio[clock]);
        System.out.printf("%-10s %,d MB, %s: old median %.2f M records/s, new median %.2f, new/old median %.3f (min %.3f, max %.3f)%n",
            format, Files.size(file) >> 20, clock == 0 ? "wall-clock" : "CPU time", old[clock][pairs / 2] / 1e6,
            now[clock][pairs / 2] / 1e6, ratio[clock][pairs / 2], ratio[clock][0], ratio[clock][pairs - 1]);
      }
    }
  }

  /** N records: 16-char keys that look like hashes, 8-digit values. */
  private static void write(Path file, InputFormat format, long records) throws IOException {
    try (Writer out = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), 1 << 16)) {
      StringBuilder line = new StringBuilder(64);
      for (long i = 0; i < records; i++) {
        String key = String.format("%016x", i * 0x9E3779B97F4A7C15L).substring(0, 16);
        String value = String.format("%08d", i % 100_000_000);
        line.setLength(0);
        switch (format) {
          case TSV -> line.append(key).append('\t').append(value);
          case CSV -> line.append(key).append(',').append(value);
          default -> line.append("{\"k\":\"").append(key).append("\",\"v\":\"").append(value).append("\"}");
        }
        out.append(line).append('\n');
      }
    }
  }

  /** Records per second of wall-clock time and of the thread's CPU time, for one full read with the old parsers. */
  private static double[] readOld(Path file, Object format, String key, String value, long expected) throws Throwable {
    long start = System.nanoTime();
    long cpuStart = CPU.getCurrentThreadCpuTime();
    long count = 0;
    long bytes = 0;
    Object reader = OLD_OPEN.invokeExact((Reader) OLD_DECODER.invokeExact(Files.newInputStream(file)), format, key, value, false);
    try {
      while ((boolean) OLD_NEXT.invokeExact(reader)) {
        bytes += ((byte[]) OLD_KEY.invokeExact(reader)).length + ((byte[]) OLD_VALUE.invokeExact(reader)).length;
        count++;
      }
    } finally {
      OLD_CLOSE.invokeExact(reader);
    }
    return rate(start, cpuStart, count, bytes, expected);
  }

  /** As {@link #readOld}, with this module's readers. */
  private static double[] readNew(Path file, InputFormat format, String key, String value, long expected) {
    long start = System.nanoTime();
    long cpuStart = CPU.getCurrentThreadCpuTime();
    long count = 0;
    long bytes = 0;
    try (RecordReader reader = RecordReader.open(Files.newInputStream(file), format, key, value, false, false)) {
      while (reader.next()) {
        bytes += reader.key().length + reader.value().length;
        count++;
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return rate(start, cpuStart, count, bytes, expected);
  }

  private static double[] rate(long start, long cpuStart, long count, long bytes, long expected) {
    long nanos = System.nanoTime() - start;
    long cpuNanos = CPU.getCurrentThreadCpuTime() - cpuStart;
    if (count != expected || bytes != expected * 24) {
      throw new AssertionError("read " + count + " records, " + bytes + " bytes");
    }
    return new double[] {count * 1e9 / nanos, count * 1e9 / cpuNanos};
  }
}
