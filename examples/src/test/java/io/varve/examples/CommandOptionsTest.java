package io.varve.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every command's options, misused at every position (issue 19, finding 8: an unknown option last
 * on the line was reported as "needs a value"): an unknown option, an option without its value, an
 * option given twice, a switch given a value. Each must exit 2 with a message that names the
 * option and what is wrong, and leave nothing behind.
 */
class CommandOptionsTest extends CommandTestSupport {
  private Path base;
  private Path input;

  /**
   * A valid run of each command, to misuse (the demos kept tiny). Options are written {@code
   * --name=value}, so that anything inserted anywhere lands between whole arguments.
   */
  private Map<String, List<String>> validRuns() {
    String out = "--out=" + temp.resolve("out");
    return Map.of(
        "build", List.of("build", input.toString(), out),
        "merge", List.of("merge", base.toString(), out),
        "reindex", List.of("reindex", base.toString(), out, "--dense"),
        "get", List.of("get", base.toString(), "a"),
        "stats", List.of("stats", base.toString()),
        "verify", List.of("verify", base.toString()),
        "dump", List.of("dump", base.toString()),
        "demo", List.of("demo", "--records=10", "--lookups=10", "--dir=" + temp.resolve("out")),
        "index-demo", List.of("index-demo", "--keys=10", "--lookups=10"),
        "dedup", List.of("dedup", input.toString()));
  }

  /** Whether {@code option} is already in the valid run {@code args}, so that adding it would repeat it. */
  private static boolean given(List<String> args, String option) {
    return args.stream().anyMatch(arg -> arg.equals("--" + option) || arg.startsWith("--" + option + "="));
  }

  /** The options that take a value, per command (what the usage text lists). */
  private static final Map<String, List<String>> VALUED = Map.of(
      "build", List.of("out", "format", "key-column", "value-column", "duplicates", "memory", "page-alignment", "block-size",
          "index", "keys-per-block", "bucket-size", "huffman-max", "skip-levels", "temp", "key-mode"),
      "merge", List.of("out", "upserts", "deletes", "format", "key-column", "value-column", "memory", "temp", "key-mode"),
      "reindex", List.of("out", "block-size", "index", "keys-per-block", "bucket-size", "huffman-max", "skip-levels"),
      "get", List.of(),
      "stats", List.of(),
      "verify", List.of(),
      "dump", List.of("limit"),
      "demo", List.of("records", "memory", "index", "keys-per-block", "bucket-size", "huffman-max", "skip-levels", "lookups",
          "seed", "dir"),
      "index-demo", List.of("keys", "bucket-size", "huffman-max", "skip-levels", "lookups", "seed"),
      "dedup", List.of("min", "avg", "max", "index", "log", "memory", "dir"));

  /** The switches, per command. */
  private static final Map<String, List<String>> SWITCHES = Map.of(
      "build", List.of("header", "huge-page-writes"),
      "merge", List.of("header"),
      "reindex", List.of("dense"),
      "get", List.of("no-index"),
      "stats", List.of("json"),
      "verify", List.of("no-index"),
      "dump", List.of("no-index"),
      "demo", List.of("keep"),
      "index-demo", List.of(),
      "dedup", List.of("check"));

  @BeforeEach
  void store() throws IOException {
    input = write("in.tsv", "a\t1\nb\t2\n");
    base = temp.resolve("base");
    assertEquals(0, run("build", input.toString(), "--out", base.toString()), stderr());
  }

  private void assertUsageError(List<String> args, String... fragments) throws IOException {
    int status = run(args.toArray(String[]::new));
    String message = stderr();
    assertEquals(2, status, args + ": " + message);
    for (String fragment : fragments) {
      assertTrue(message.contains(fragment), args + ": expected '" + fragment + "' in: " + message);
    }
    assertTrue(Files.notExists(temp.resolve("out")), args + " left its output");
    assertNoLeftovers();
  }

  private static List<String> with(List<String> args, int at, String... inserted) {
    List<String> result = new ArrayList<>(args);
    result.addAll(at, List.of(inserted));
    return result;
  }

  @Test
  void anUnknownOptionIsNamedWhereverItIs() throws IOException {
    for (Map.Entry<String, List<String>> command : validRuns().entrySet()) {
      List<String> valid = command.getValue();
      for (int at = 1; at <= valid.size(); at++) {
        assertUsageError(with(valid, at, "--some-unknown-flag"), "unknown option --some-unknown-flag", "varve help");
        assertUsageError(with(valid, at, "--some-unknown-flag=3"), "unknown option --some-unknown-flag");
      }
    }
  }

  @Test
  void aNearMissIsSuggested() throws IOException {
    assertUsageError(with(validRuns().get("build"), 3, "--dupliates", "last-wins"), "unknown option --dupliates (did you mean --duplicates?)");
    assertUsageError(with(validRuns().get("stats"), 2, "--jsn"), "unknown option --jsn (did you mean --json?)");
  }

  @Test
  void anOptionWithoutItsValue() throws IOException {
    for (Map.Entry<String, List<String>> command : VALUED.entrySet()) {
      List<String> valid = validRuns().get(command.getKey());
      for (String option : command.getValue()) {
        if (given(valid, option)) {
          assertUsageError(with(valid, valid.size(), "--" + option), "option --" + option + " is given twice");
          continue;
        }
        // Last on the line, and followed by another option.
        assertUsageError(with(valid, valid.size(), "--" + option), "option --" + option + " needs a value");
        String switchAfter = SWITCHES.get(command.getKey()).isEmpty() ? "--some-unknown-flag" : "--" + SWITCHES.get(command.getKey()).get(0);
        assertUsageError(with(valid, 1, "--" + option, switchAfter), "option --" + option + " needs a value");
        assertUsageError(with(valid, 1, "--" + option + "="), "option --" + option + " needs a value");
      }
    }
  }

  @Test
  void anOptionGivenTwice() throws IOException {
    for (Map.Entry<String, List<String>> command : VALUED.entrySet()) {
      List<String> valid = validRuns().get(command.getKey());
      for (String option : command.getValue()) {
        assertUsageError(with(valid, 1, "--" + option, "1", "--" + option + "=2"),
            "option --" + option + " is given twice");
      }
    }
    for (Map.Entry<String, List<String>> command : SWITCHES.entrySet()) {
      List<String> valid = validRuns().get(command.getKey());
      for (String option : command.getValue()) {
        if (given(valid, option)) {
          continue;
        }
        assertUsageError(with(valid, 1, "--" + option, "--" + option), "option --" + option + " is given twice");
      }
    }
  }

  @Test
  void aSwitchGivenAValue() throws IOException {
    for (Map.Entry<String, List<String>> command : SWITCHES.entrySet()) {
      List<String> valid = validRuns().get(command.getKey());
      for (String option : command.getValue()) {
        if (given(valid, option)) {
          continue;
        }
        assertUsageError(with(valid, 1, "--" + option + "=yes"), "option --" + option + " takes no value");
      }
    }
  }

  @Test
  void aDoubleDashEndsTheOptions() throws IOException {
    Path store = temp.resolve("dashes");
    assertEquals(0, run("build", write("dashes.tsv", "--key\tv\n-k\tw\n").toString(), "--out", store.toString()), stderr());
    assertEquals(0, run("get", store.toString(), "--", "--key", "-k"), stderr());
    assertEquals("v\nw\n", stdout());
    assertEquals(0, run("get", "--no-index", store.toString(), "-k", "--", "--key"), stderr());
    assertEquals("w\nv\n", stdout());
  }
}
