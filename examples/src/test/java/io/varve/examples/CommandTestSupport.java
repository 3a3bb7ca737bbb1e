package io.varve.examples;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** What the command tests share: a scratch directory, and {@code varve} run with its output captured. */
abstract class CommandTestSupport {
  @TempDir Path temp;
  /** What the last command printed (tests that call a command class directly print here too). */
  final ByteArrayOutputStream out = new ByteArrayOutputStream();

  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  /** Runs {@code varve args...}; returns its exit code (output in {@link #stdout}, {@link #stderr}). */
  int run(String... args) {
    out.reset();
    err.reset();
    return Varve.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  String stdout() {
    return out.toString(StandardCharsets.UTF_8);
  }

  String stderr() {
    return err.toString(StandardCharsets.UTF_8);
  }

  /** Writes a UTF-8 text file into the scratch directory. */
  Path write(String name, String text) throws IOException {
    return Files.writeString(temp.resolve(name), text, StandardCharsets.UTF_8);
  }
}
