package io.varve.cli.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the tests of a command-line program share (the {@code varve} command's, and the examples'
 * through varve-cli's test-jar): a scratch directory, and the program run in process with its
 * output captured. A subclass says how to run the program ({@link #execute}).
 */
public abstract class CommandTestBase {
  @TempDir protected Path temp;

  /** What the last command printed (tests that call a command class directly print here too). */
  protected final ByteArrayOutputStream out = new ByteArrayOutputStream();

  protected final ByteArrayOutputStream err = new ByteArrayOutputStream();

  /** Runs the program with {@code args}, printing on {@code out} and {@code err}; returns its exit code. */
  protected abstract int execute(String[] args, PrintStream out, PrintStream err);

  /** Runs the program with {@code args}; returns its exit code (output in {@link #stdout}, {@link #stderr}). */
  protected int run(String... args) {
    out.reset();
    err.reset();
    return execute(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  /** Runs the program with {@code args}: it must exit with {@code status}, and say {@code words} on stderr. */
  protected void assertAnswers(int status, String words, String... args) {
    Assertions.assertEquals(status, run(args), () -> String.join(" ", args) + "\nstderr: " + stderr());
    Assertions.assertTrue(stderr().contains(words), () -> "expected '" + words + "' on stderr: " + String.join(" ", args) + "\n" + stderr());
  }

  protected String stdout() {
    return out.toString(StandardCharsets.UTF_8);
  }

  protected String stderr() {
    return err.toString(StandardCharsets.UTF_8);
  }

  protected static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  protected static String string(byte[] bytes) {
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  /** No staging or temporary directory (their names start with a dot) is left in the scratch directory. */
  protected void assertNoLeftovers() throws IOException {
    try (Stream<Path> files = Files.list(temp)) {
      Assertions.assertEquals(List.of(), files.filter(p -> p.getFileName().toString().startsWith(".")).toList());
    }
  }

  /** Writes a UTF-8 text file into the scratch directory. */
  protected Path write(String name, String text) throws IOException {
    return Files.writeString(temp.resolve(name), text, StandardCharsets.UTF_8);
  }
}
