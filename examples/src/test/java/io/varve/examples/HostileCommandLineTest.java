package io.varve.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every case in {@code hostile/cli}: a folder with {@code args} (one argument per line), optional
 * input files, an optional {@code setup} (lines {@code varve ARGS...} that must succeed, {@code
 * delete PATH}, {@code flip PATH OFFSET}: one byte changed, {@code truncate PATH LENGTH}), and
 * {@code expect}: the exit code on its first line, then lines that standard error must contain
 * ({@code stdout: TEXT} lines for standard output). {@code $CASE} is the case's folder, {@code
 * $TMP} a fresh scratch folder. After every case no staging or temporary folder is left in {@code
 * $TMP}, and a failed build leaves no store.
 */
class HostileCommandLineTest extends CommandTestSupport {

  static List<Path> cases() throws IOException, URISyntaxException {
    Path folder = Path.of(HostileCommandLineTest.class.getResource("/hostile/cli").toURI());
    try (Stream<Path> cases = Files.list(folder)) {
      return cases.filter(Files::isDirectory).sorted().collect(Collectors.toList());
    }
  }

  @Test
  void theFolderHoldsCases() throws Exception {
    assertTrue(cases().size() >= 30, "cases: " + cases().size());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void answersWithTheDocumentedExitCodeAndAMessageThatSaysWhatToDo(Path caseFolder) throws IOException {
    String name = caseFolder.getFileName().toString();
    Path setup = caseFolder.resolve("setup");
    if (Files.exists(setup)) {
      for (String line : lines(setup, caseFolder)) {
        runSetup(name, line);
      }
    }
    List<String> expect = lines(caseFolder.resolve("expect"), caseFolder);
    int code = run(lines(caseFolder.resolve("args"), caseFolder).toArray(new String[0]));
    String report = name + ": exit " + code + "\nstderr: " + stderr() + "\nstdout: " + stdout();
    assertEquals(Integer.parseInt(expect.get(0).trim()), code, report);
    for (String fragment : expect.subList(1, expect.size())) {
      if (fragment.startsWith("stdout: ")) {
        assertTrue(stdout().contains(fragment.substring(8)), "stdout lacks '" + fragment.substring(8) + "': " + report);
      } else {
        assertTrue(stderr().contains(fragment), "stderr lacks '" + fragment + "': " + report);
      }
    }
    if (code != 0) {
      assertFalse(stderr().isBlank(), "a failure says why: " + report);
      assertFalse(stderr().contains("Exception"), "no Java exception names: " + report);
      assertFalse(Files.exists(temp.resolve("out")), "a failed command leaves no store at $TMP/out: " + report);
    }
    assertNoLeftovers();
  }

  /** The file's lines with {@code $CASE} and {@code $TMP} replaced; blank lines and {@code #} comments dropped. */
  private List<String> lines(Path file, Path caseFolder) throws IOException {
    List<String> lines = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      lines.add(line.replace("$CASE", caseFolder.toString()).replace("$TMP", temp.toString()));
    }
    return lines;
  }

  private void runSetup(String name, String line) throws IOException {
    String[] words = line.split(" ");
    switch (words[0]) {
      case "varve" -> {
        String[] args = java.util.Arrays.copyOfRange(words, 1, words.length);
        assertEquals(0, run(args), name + ": setup '" + line + "' failed: " + stderr());
      }
      case "delete" -> Files.delete(Path.of(words[1]));
      case "flip" -> {
        Path file = Path.of(words[1]);
        byte[] bytes = Files.readAllBytes(file);
        bytes[Integer.parseInt(words[2])] ^= 0x20;
        Files.write(file, bytes);
      }
      case "truncate" -> {
        Path file = Path.of(words[1]);
        Files.write(file, java.util.Arrays.copyOf(Files.readAllBytes(file), Integer.parseInt(words[2])));
      }
      default -> throw new AssertionError(name + ": unknown setup step '" + line + "'");
    }
  }
}
