package io.varve.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.ShardedStoreBuilder;
import io.varve.builder.StoreArtifacts;
import io.varve.builder.StoreBuilder;
import io.varve.core.files.FileTrees;
import io.varve.core.store.KeyMode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs every case in {@code hostile/cli} ({@link HostileCommandCase}, written by {@link
 * HostileCommandCases}) through {@link Varve#run} in process: each step must give its exit code and
 * the words it lists, and a run must leave the case's directory as it found it (no partial store,
 * no temporary files, no input or store changed) apart from what a successful case creates.
 */
class HostileCommandTest {
  @TempDir Path temp;

  static List<String> caseNames() throws IOException, URISyntaxException {
    try (Stream<Path> files = Files.list(folder())) {
      return files.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  private static Path folder() throws URISyntaxException {
    return Path.of(HostileCommandTest.class.getResource("/hostile/cli").toURI());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("caseNames")
  void answersAsTheCaseSays(String name) throws Exception {
    HostileCommandCase c = HostileCommandCase.parse(Files.readAllBytes(folder().resolve(name)));
    Path dir = temp.resolve("case");
    Files.createDirectory(dir);
    for (Map.Entry<String, byte[]> file : c.files.entrySet()) {
      Files.write(dir.resolve(file.getKey()), file.getValue());
    }
    for (String given : c.given) {
      prepare(dir, given);
    }
    Map<String, String> before = snapshot(dir);
    for (HostileCommandCase.Step step : c.steps) {
      String[] args = step.args.stream().map(a -> a.replace("{dir}", dir.toString())).toArray(String[]::new);
      InputStream stdin =
          step.stdin == null ? new ByteArrayInputStream(new byte[0]) : new ByteArrayInputStream(c.files.get(step.stdin));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int status =
          Varve.run(args, stdin, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
      String stdout = out.toString(StandardCharsets.UTF_8);
      String stderr = err.toString(StandardCharsets.UTF_8);
      String context = name + ": varve " + String.join(" ", step.args) + "\nstdout: " + shorten(stdout) + "\nstderr: " + stderr;
      assertEquals(step.exit, status, context);
      for (String fragment : step.stderr) {
        assertTrue(stderr.contains(fragment), "expected '" + fragment + "' on stderr\n" + context);
      }
      for (String fragment : step.stderrNot) {
        assertFalse(stderr.contains(fragment), "did not expect '" + fragment + "' on stderr\n" + context);
      }
      for (String fragment : step.stdout) {
        assertTrue(stdout.contains(fragment), "expected '" + fragment + "' on stdout\n" + context);
      }
      if (step.stdoutIs != null) {
        assertEquals(step.stdoutIs, stdout, context);
      }
      if (status != 0) {
        // Every failure says something, on stderr, in one place a script can read.
        assertFalse(stderr.isBlank(), context);
      }
    }
    Map<String, String> after = snapshot(dir);
    for (String created : c.creates) {
      assertTrue(after.containsKey(created), name + ": " + created + " was not created");
      after.keySet().removeIf(path -> path.equals(created) || path.startsWith(created + "/"));
    }
    assertEquals(before, after, name + ": the case's directory changed (a partial store, temporary files, a changed input?)");
  }

  /** Sets up what a case's {@code given:} line says; see {@link HostileCommandCases}. */
  private static void prepare(Path dir, String given) throws IOException {
    String[] words = given.split(" ", 3);
    Path path = dir.resolve(words[1]);
    switch (words[0]) {
      case "store" -> {
        // A rank index and offsets: the cases damage those files by name.
        try (StoreBuilder builder = StoreBuilder.create(path).indexParameters(StoreBuilder.DEFAULT_INDEX)) {
          if (words.length > 2) {
            builder.keyMode(KeyMode.signature(Integer.parseInt(words[2].substring("signature:".length()))));
          }
          builder.put(bytes("a"), bytes("1")).put(bytes("b"), bytes("22")).put(bytes("c"), bytes("333"));
          builder.build();
        }
      }
      case "sharded" -> {
        String[] options = words[2].split(" ");
        try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(path, Integer.parseInt(options[0]))) {
          if (options.length > 1 && options[1].equals("artifacts")) {
            builder.shardsAsArtifacts();
          }
          builder.put(bytes("a"), bytes("1")).put(bytes("b"), bytes("22")).put(bytes("c"), bytes("333"));
          builder.build();
        }
      }
      case "pack" -> StoreArtifacts.pack(path, dir.resolve(words[2]));
      case "dir" -> Files.createDirectories(path);
      case "delete" -> Files.delete(path);
      case "delete-tree" -> FileTrees.deleteTree(path);
      case "move" -> Files.move(path, dir.resolve(words[2]));
      case "truncate" -> {
        try (var channel = java.nio.channels.FileChannel.open(path, java.nio.file.StandardOpenOption.WRITE)) {
          channel.truncate(Long.parseLong(words[2]));
        }
      }
      case "flip" -> {
        byte[] content = Files.readAllBytes(path);
        content[words.length > 2 ? Integer.parseInt(words[2]) : content.length / 2] ^= 0x10;
        Files.write(path, content);
      }
      case "write" -> Files.writeString(path, words[2]);
      case "symlink" -> Files.createSymbolicLink(path, Path.of(words[2]));
      case "unreadable" -> {
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("---------"));
        Assumptions.assumeFalse(Files.isReadable(path), "this user (root?) reads files whatever their permissions");
      }
      case "read-only" -> {
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("r-xr-xr-x"));
        Assumptions.assumeFalse(Files.isWritable(path), "this user (root?) writes files whatever their permissions");
      }
      default -> throw new IllegalArgumentException("unknown given: " + given);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Every path under {@code dir} (relative, with '/'), with its kind, size and modification time. */
  private static Map<String, String> snapshot(Path dir) throws IOException {
    Map<String, String> entries = new TreeMap<>();
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(dir)) {
      paths = walk.filter(p -> !p.equals(dir)).collect(Collectors.toCollection(ArrayList::new));
    }
    for (Path path : paths) {
      BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      String kind = attributes.isDirectory() ? "dir" : attributes.isSymbolicLink() ? "link" : "file";
      entries.put(
          dir.relativize(path).toString().replace('\\', '/'),
          kind + " " + attributes.size() + " " + attributes.lastModifiedTime().toMillis());
    }
    return entries;
  }

  private static String shorten(String text) {
    return text.length() <= 2000 ? text : text.substring(0, 2000) + "...";
  }

  @Test
  void theFolderHoldsExactlyTheGeneratedCases() throws Exception {
    Map<String, byte[]> generated = HostileCommandCases.variants();
    assertTrue(generated.size() >= 80, "breadth: " + generated.size() + " cases");
    assertEquals(generated.keySet().stream().sorted().collect(Collectors.toList()), caseNames(),
        "regenerate with: java -cp ... io.varve.cli.HostileCommandCases examples/src/test/resources/hostile/cli");
    for (Map.Entry<String, byte[]> c : generated.entrySet()) {
      assertEquals(-1, java.util.Arrays.mismatch(c.getValue(), Files.readAllBytes(folder().resolve(c.getKey()))), c.getKey());
    }
  }

  @Test
  void aCaseReadsBackAsWritten() {
    HostileCommandCase c =
        new HostileCommandCase().why("w").given("store base").runArgs("get", "{dir}", "a b", "", "t\tab\\").exit(1)
            .stderr("x\ny").stdoutIs("\u0000").file("f", new byte[] {(byte) 0xFF, '\n'});
    HostileCommandCase back = HostileCommandCase.parse(c.toBytes());
    assertEquals(List.of("get", "{dir}", "a b", "", "t\tab\\"), back.steps.get(0).args);
    assertEquals(List.of("x\ny"), back.steps.get(0).stderr);
    assertEquals("\u0000", back.steps.get(0).stdoutIs);
    assertEquals(List.of("store base"), back.given);
    assertEquals(-1, java.util.Arrays.mismatch(new byte[] {(byte) 0xFF, '\n'}, back.files.get("f")));
  }
}
