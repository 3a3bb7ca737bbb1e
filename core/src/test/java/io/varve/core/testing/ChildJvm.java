package io.varve.core.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A second JVM on this test's class path: a process to hold or probe a lock, or a heap of its own. */
public final class ChildJvm {
  private ChildJvm() {}

  /** What a child printed (both streams) and how it exited. */
  public record Result(int exitCode, String output) {}

  /** Runs {@code main} with {@code args} in a JVM of heap {@code maxHeap} (as {@code -Xmx} takes it) and waits for it. */
  public static Result run(String maxHeap, Class<?> main, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + maxHeap);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Result(child.waitFor(), output);
  }
}
