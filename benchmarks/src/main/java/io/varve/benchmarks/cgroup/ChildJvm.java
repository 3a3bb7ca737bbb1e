package io.varve.benchmarks.cgroup;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a main class of this class path in a child JVM inside a {@link MemoryCgroup}, echoes its
 * output (indented) and returns the fields of the one line it prints as {@code RESULT key=value
 * ...}. A child per run keeps one system's heap, native allocations, JIT state and page cache from
 * leaking into the next one's measurement. Stateless; thread-safe.
 */
public final class ChildJvm {
  private ChildJvm() {}

  /**
   * Runs {@code mainClass} with {@code jvmOptions} and {@code arguments} in {@code cgroup} (or
   * unbounded when null); throws when the child fails or prints no result.
   */
  public static Map<String, String> run(MemoryCgroup cgroup, List<String> jvmOptions, Class<?> mainClass,
      List<String> arguments) throws IOException, InterruptedException {
    return run(cgroup, Map.of(), jvmOptions, mainClass, arguments);
  }

  /** As {@link #run(MemoryCgroup, List, Class, List)}, with {@code environment} added to the child's. */
  public static Map<String, String> run(MemoryCgroup cgroup, Map<String, String> environment,
      List<String> jvmOptions, Class<?> mainClass, List<String> arguments) throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>();
    command.add(java);
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
    command.addAll(arguments);
    ProcessBuilder builder = new ProcessBuilder(MemoryCgroup.commandIn(cgroup, command)).redirectErrorStream(true);
    builder.environment().putAll(environment);
    Process process = builder.start();
    Map<String, String> result = null;
    try (BufferedReader lines = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = lines.readLine()) != null; ) {
        if (line.startsWith("RESULT ")) {
          result = parseResult(line);
        } else {
          System.out.println("  | " + line);
        }
      }
    }
    int exit = process.waitFor();
    if (exit != 0 || result == null) {
      throw new IllegalStateException(mainClass.getSimpleName() + " " + arguments + " failed (exit " + exit
          + (exit == 137 ? ", killed: out of memory in its cgroup?" : "") + ")");
    }
    return result;
  }

  /** The fields of a {@code RESULT key=value ...} line. */
  static Map<String, String> parseResult(String line) {
    Map<String, String> result = new HashMap<>();
    for (String field : line.substring("RESULT ".length()).trim().split(" ")) {
      int equals = field.indexOf('=');
      result.put(field.substring(0, equals), field.substring(equals + 1));
    }
    return result;
  }
}
