package io.varve.cli;

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
        "demo", List.of("demo", "--records=10", "--lookups=10", "--dir=" + temp.resolve("out")));
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
          "seed", "dir"));

  /** The switches, per command. */
  private static final Map<String, List<String>> SWITCHES = Map.of(
      "build", List.of("header", "json-text", "huge-page-writes"),
      "merge", List.of("header", "json-text"),
      "reindex", List.of("dense"),
      "get", List.of("no-index"),
      "stats", List.of("json"),
      "verify", List.of("no-index"),
      "dump", List.of("no-index"),
      "demo", List.of("keep"));

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
        assertUsageError(with(valid, at, "--some-unknown-flag"), "unknown option --some-unknown-flag", "--help' describes its options");
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
        // Last on the line, and followed by another option.
        assertUsageError(with(valid, valid.size(), "--" + option), "Missing required parameter for option '--" + option + "'");
        String switchAfter = SWITCHES.get(command.getKey()).isEmpty() ? "--some-unknown-flag" : "--" + SWITCHES.get(command.getKey()).get(0);
        assertUsageError(with(valid, 1, "--" + option, switchAfter), "option '--" + option + "'");
      }
    }
  }

  @Test
  void anOptionGivenTwice() throws IOException {
    for (Map.Entry<String, List<String>> command : VALUED.entrySet()) {
      List<String> valid = validRuns().get(command.getKey());
      for (String option : command.getValue()) {
        // (--block-size and --dense of reindex exclude each other: that is said first.)
        assertUsageError(with(valid, 1, "--" + option, "1", "--" + option + "=2"), "--" + option);
      }
    }
    for (Map.Entry<String, List<String>> command : SWITCHES.entrySet()) {
      List<String> valid = validRuns().get(command.getKey());
      for (String option : command.getValue()) {
        if (given(valid, option)) {
          continue;
        }
        assertUsageError(with(valid, 1, "--" + option, "--" + option), "option '--" + option + "'", "should be specified only once");
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
        assertUsageError(with(valid, 1, "--" + option + "=yes"), "Invalid value for option '--" + option + "': 'yes' is not a boolean");
      }
    }
  }

  @Test
  void aDoubleDashEndsTheOptions() throws IOException {
    Path store = temp.resolve("dashes");
    assertEquals(0, run("build", write("dashes.tsv", "--key\tv\n-k\tw\n").toString(), "--out", store.toString()), stderr());
    assertEquals(0, run("get", store.toString(), "--", "--key", "-k"), stderr());
    assertEquals("--key\tv\n-k\tw\n", stdout());
    assertEquals(0, run("get", "--no-index", store.toString(), "--", "-k", "--key"), stderr());
    assertEquals("-k\tw\n--key\tv\n", stdout());
    // Before --, an argument that starts with - is an option, so an unknown one.
    assertEquals(2, run("get", store.toString(), "a", "-k"));
    assertTrue(stderr().contains("varve get: unknown option -k"), stderr());
  }
}
