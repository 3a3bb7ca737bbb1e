package io.varve.cli;

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
    return Varve.run(args, java.io.InputStream.nullInputStream(), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  String stdout() {
    return out.toString(StandardCharsets.UTF_8);
  }

  String stderr() {
    return err.toString(StandardCharsets.UTF_8);
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static String string(byte[] bytes) {
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  /** No staging or temporary directory (their names start with a dot) is left in the scratch directory. */
  void assertNoLeftovers() throws IOException {
    try (java.util.stream.Stream<Path> files = Files.list(temp)) {
      org.junit.jupiter.api.Assertions.assertEquals(
          java.util.List.of(), files.filter(p -> p.getFileName().toString().startsWith(".")).toList());
    }
  }

  /** Writes a UTF-8 text file into the scratch directory. */
  Path write(String name, String text) throws IOException {
    return Files.writeString(temp.resolve(name), text, StandardCharsets.UTF_8);
  }
}
