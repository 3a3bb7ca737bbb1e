package io.varve.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.varve.builder.StoreBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What scripts rely on: the exit codes the usage footer lists, {@code --help} and {@code
 * --version} for every command, what {@code get} prints for several keys, and {@code stats
 * --json} as one JSON object with the user metadata.
 */
class CommandContractTest extends CommandTestSupport {
  @Test
  void everyCommandHasHelpThatSucceeds() {
    for (String command : Varve.commandLine().getSubcommands().keySet()) {
      if (command.equals("help")) {
        continue;
      }
      assertEquals(0, run(command, "--help"), command + ": " + stderr());
      assertTrue(stdout().contains("\nUsage: varve " + command + " "), stdout());
      assertEquals("", stderr());
      assertEquals(0, run("help", command), command);
      assertTrue(stdout().contains("\nUsage: varve " + command + " "), stdout());
    }
    assertEquals(0, run("--help"));
    assertTrue(stdout().contains("Exit codes:"), stdout());
  }

  @Test
  void versionNamesTheProjectVersion() {
    assertEquals(0, run("--version"));
    assertTrue(stdout().matches("(?s)varve \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\nJava .*"), stdout());
  }

  @Test
  void theUsageFooterListsTheExitCodesTheCommandUses() {
    assertEquals(0, run("--help"));
    for (int code : Varve.EXIT_CODES) {
      assertTrue(stdout().contains("\n  " + code + "  "), code + " in\n" + stdout());
    }
  }

  @Test
  void exitCodesOfEachKindOfFailure() throws IOException {
    Path store = temp.resolve("store");
    Path input = write("in.tsv", "a\t1\nb\t2\n");
    assertEquals(Varve.OK, run("build", input.toString(), "--out", store.toString()), stderr());
    // 0: success; 1: a key is absent.
    assertEquals(Varve.OK, run("get", store.toString(), "a"));
    assertEquals(Varve.ABSENT_OR_DAMAGED, run("get", store.toString(), "a", "nope"));
    // 2: bad usage.
    assertEquals(Varve.BAD_USAGE_OR_INPUT, run("get", store.toString()));
    assertEquals(Varve.BAD_USAGE_OR_INPUT, run("build", input.toString(), "--out", temp.resolve("x").toString(), "--colour"));
    // 2: bad input, naming the file and the line.
    Path bad = write("bad.csv", "k,v\n\"unclosed,1\n");
    assertEquals(Varve.BAD_USAGE_OR_INPUT, run("build", bad.toString(), "--out", temp.resolve("y").toString()));
    assertTrue(stderr().startsWith("varve build: " + bad + ": line 2: "), stderr());
    // 3: an I/O error (the kernel refuses to read this file at offset 0).
    Path unreadable = Path.of("/proc/self/mem");
    if (Files.exists(unreadable)) {
      assertEquals(Varve.IO_ERROR, run("build", unreadable.toString(), "--out", temp.resolve("z").toString()), stderr());
      assertTrue(stderr().contains("I/O error"), stderr());
    }
    // 1: a damaged store.
    Files.write(store.resolve("index"), new byte[] {1, 2, 3});
    assertEquals(Varve.ABSENT_OR_DAMAGED, run("get", store.toString(), "a"));
    assertTrue(stderr().contains("damaged store"), stderr());
  }

  @Test
  void getPrintsKeyAndValueSoThatLinesMatchKeys() throws IOException {
    Path store = temp.resolve("store");
    assertEquals(0, run("build", write("in.tsv", "a\t1\nb\tx\\ty\nc\t\n").toString(), "--out", store.toString()), stderr());
    assertEquals(1, run("get", store.toString(), "c", "nope", "b", "a"));
    // The absent key prints nothing on stdout; the others print in the order asked, escaped as TSV.
    assertEquals("c\t\nb\tx\\ty\na\t1\n", stdout());
    assertEquals("varve get: nope: not found\n", stderr());
  }

  @Test
  void statsJsonIsOneObjectWithTheUserMetadata() throws IOException {
    Path store = temp.resolve("store");
    try (StoreBuilder builder = StoreBuilder.create(store)) {
      builder.metadata("team", "search \"quoted\"").metadata("day", "2026-11-25");
      builder.put(bytes("k"), bytes("v")).build();
    }
    assertEquals(0, run("stats", store.toString(), "--json"), stderr());
    Map<String, String> metadata = new LinkedHashMap<>();
    String keyMode = null;
    long records = -1;
    try (JsonParser json = new JsonFactory().createParser(stdout())) {
      assertEquals(JsonToken.START_OBJECT, json.nextToken());
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        String name = json.currentName();
        json.nextToken();
        switch (name) {
          case "metadata" -> {
            while (json.nextToken() == JsonToken.FIELD_NAME) {
              String key = json.currentName();
              json.nextToken();
              metadata.put(key, json.getText());
            }
          }
          case "keyMode" -> keyMode = json.getText();
          case "records" -> records = json.getLongValue();
          default -> json.skipChildren();
        }
      }
      assertEquals(JsonToken.END_OBJECT, json.currentToken());
      assertEquals(null, json.nextToken());
    }
    assertEquals(Map.of("team", "search \"quoted\"", "day", "2026-11-25"), metadata);
    assertEquals("full", keyMode);
    assertEquals(1, records);
    // The text form shows the same metadata.
    assertEquals(0, run("stats", store.toString()));
    assertTrue(stdout().contains("meta team        search \"quoted\""), stdout());
  }

  @Test
  void theDuplicateKeyErrorNamesTheOptionAndTheLines() throws IOException {
    Path input = write("in.jsonl", "{\"key\":\"a\",\"value\":\"1\"}\n{\"key\":\"b\",\"value\":\"2\"}\n{\"key\":\"a\",\"value\":\"3\"}\n");
    assertEquals(2, run("build", input.toString(), "--out", temp.resolve("s").toString()));
    assertEquals("varve build: " + input + ": duplicate key \"a\" on lines 1 and 3; give --duplicates last-wins to keep the last"
        + " value of a repeated key\n", stderr());
    assertFalse(stderr().contains("DuplicatePolicy") || stderr().contains("LAST_WINS"), stderr());
  }

  @Test
  void theCommandBindsSlf4jToNothing() {
    // Chronicle logs through SLF4J: without a provider on the classpath SLF4J prints warnings on
    // every run. The command's runtime classpath (and its jar) carries slf4j-nop.
    assertEquals("org.slf4j.helpers.NOPLoggerFactory", org.slf4j.LoggerFactory.getILoggerFactory().getClass().getName());
  }

  @Test
  void commandsAreTheOnesTheReadmeLists() throws IOException {
    Path readme = Path.of(System.getProperty("user.dir")).resolveSibling("README.md");
    String text = Files.readString(readme);
    String marker = "<!-- varve --help: generated by picocli, checked by CommandContractTest -->\n```\n";
    int start = text.indexOf(marker);
    assertTrue(start >= 0, "README.md has no block marked " + marker);
    int end = text.indexOf("```\n", start + marker.length());
    String documented = text.substring(start + marker.length(), end);
    String usage = Varve.commandLine().getUsageMessage();
    assertEquals(usage, documented, "README.md's varve --help differs from the command's: paste the command's");
    List<String> commands = Varve.commandLine().getSubcommands().keySet().stream().filter(c -> !c.equals("help")).toList();
    for (String command : commands) {
      assertTrue(text.contains("varve " + command + " "), "README.md shows no use of varve " + command);
    }
  }
}
