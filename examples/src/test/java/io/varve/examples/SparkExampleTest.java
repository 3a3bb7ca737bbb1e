package io.varve.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.examples.spark.LocalSpark;
import io.varve.reader.ShardedStore;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.commons.compress.compressors.lz4.FramedLZ4CompressorOutputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The Spark example end to end: {@code spark-job} builds a sharded store in local mode from a file
 * of random words (and from an LZ4-compressed Debian package list), {@code serve} and {@link
 * ShardedStore} answer for every key as the input says. Skipped where Spark cannot start (Java 24
 * and later), where the job's message is checked instead.
 */
class SparkExampleTest extends CommandTestSupport {
  private static final long SEED = 0x5BA4C_0DEL;

  private static void assumeSpark() {
    Assumptions.assumeTrue(LocalSpark.whyItCannotStart().isEmpty(),
        () -> "Spark tests skipped on Java " + Runtime.version() + ": " + LocalSpark.whyItCannotStart().orElseThrow());
  }

  /** 3,000 lines of random words, some repeated, one empty: each word with the first line it is on (from 1). */
  private static Map<String, Long> writeWords(Path file, SplittableRandom random) throws IOException {
    Map<String, Long> firstLine = new LinkedHashMap<>();
    List<String> lines = new ArrayList<>();
    String letters = "abcdefghijklmnopqrstuvwxyzéø'";
    for (int line = 1; line <= 3_000; line++) {
      String word;
      if (line == 1500) {
        word = "";
      } else if (line % 50 == 0) {
        word = lines.get(random.nextInt(lines.size() - 1));
      } else {
        StringBuilder s = new StringBuilder();
        for (int i = 0, n = 2 + random.nextInt(9); i < n; i++) {
          s.append(letters.charAt(random.nextInt(letters.length())));
        }
        word = s.toString();
      }
      lines.add(word);
      if (!word.isEmpty()) {
        firstLine.putIfAbsent(word, (long) line);
      }
    }
    Files.write(file, lines, StandardCharsets.UTF_8);
    return firstLine;
  }

  @Test
  void theJobBuildsAShardedStoreThatServesEveryWordWithItsLine() throws IOException {
    assumeSpark();
    System.out.println("SparkExampleTest seed " + Long.toHexString(SEED));
    SplittableRandom random = new SplittableRandom(SEED);
    Path words = temp.resolve("words.txt");
    Map<String, Long> expected = writeWords(words, random);
    Path out = temp.resolve("words-store");
    assertEquals(0, run("spark-job", out.toString(), "--input", words.toString(), "--shards", "4"), stderr());
    assertTrue(stdout().contains("words of " + words), stdout());
    assertTrue(stdout().contains(String.format("built        %,d records in 4 shards", expected.size())), stdout());
    assertTrue(stdout().contains("serve it     java -jar examples/target/varve-examples.jar serve " + out + " "), stdout());

    // Every word, through the library, as the serving program opens the store.
    try (ShardedStore store = ShardedStore.open(out)) {
      assertEquals(4, store.shardCount());
      assertEquals(expected.size(), store.size());
      expected.forEach((word, line) -> assertEquals(Long.toString(line), string(store.get(bytes(word))), word));
      assertNull(store.get(bytes("")), "the empty line is no word");
      assertNull(store.get(bytes("not a word")));
      store.verify();
    }

    // The serving program: found keys with their line and shard, in the order asked; an absent one exits 1.
    List<String> asked = new ArrayList<>(expected.keySet()).subList(0, 20);
    List<String> args = new ArrayList<>(List.of("serve", out.toString()));
    args.addAll(asked);
    args.add("zzz-absent");
    assertEquals(1, run(args.toArray(String[]::new)));
    assertEquals("Examples serve: zzz-absent: not found\n", stderr());
    List<String> lines = stdout().lines().toList();
    assertTrue(lines.get(0).startsWith("opened " + out + ": " + String.format("%,d records in 4 shards", expected.size())), lines.get(0));
    try (ShardedStore store = ShardedStore.open(out)) {
      for (int i = 0; i < asked.size(); i++) {
        String word = asked.get(i);
        assertEquals(word + "\t" + expected.get(word) + "\t(shard " + store.shardOf(bytes(word)) + ")", lines.get(1 + i));
      }
    }
    assertEquals(1 + asked.size(), lines.size());

    // A store is written once: the same OUT again is refused before Spark starts.
    assertAnswers(2, "words-store exists: a sharded store is written once", "spark-job", out.toString(), "--input", words.toString());
  }

  @Test
  void theJobReadsAnLz4DebianPackageList() throws IOException {
    assumeSpark();
    StringBuilder list = new StringBuilder();
    Map<String, String> versions = new LinkedHashMap<>();
    for (int i = 0; i < 200; i++) {
      String name = "pkg-" + i;
      String version = i + ".0-" + (i % 3);
      versions.put(name, version);
      list.append("Package: ").append(name).append('\n')
          .append("Version: ").append(version).append('\n')
          .append("Depends: libc6 (>= 2.34)\n")
          .append("Description: package number ").append(i).append('\n')
          .append(" a continuation line: Version: 9.9 is not a field\n\n");
    }
    // A name listed twice: the greatest version (as a string) is kept.
    list.append("Package: pkg-7\nVersion: 7.1-0\n\n");
    versions.put("pkg-7", "7.1-0");
    Path packages = temp.resolve("deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages.lz4");
    try (OutputStream lz4 = new FramedLZ4CompressorOutputStream(Files.newOutputStream(packages))) {
      lz4.write(list.toString().getBytes(StandardCharsets.UTF_8));
    }
    Path out = temp.resolve("packages");
    assertEquals(0, run("spark-job", out.toString(), "--input", packages.toString(), "--shards", "3"), stderr());
    assertTrue(stdout().contains("Debian packages of " + packages + " (key: the package, value: its version)"), stdout());
    try (ShardedStore store = ShardedStore.open(out)) {
      assertEquals(versions.size(), store.size());
      versions.forEach((name, version) -> assertEquals(version, string(store.get(bytes(name))), name));
    }
  }

  @Test
  void whereSparkCannotStartTheJobSaysWhyWithoutAStackTrace() throws IOException {
    Assumptions.assumeFalse(LocalSpark.whyItCannotStart().isEmpty(), "Spark starts on Java " + Runtime.version());
    Path words = Files.writeString(temp.resolve("words"), "a\nb\n");
    assertEquals(4, run("spark-job", temp.resolve("out").toString(), "--input", words.toString()));
    assertTrue(stderr().startsWith("Examples spark-job: Spark "), stderr());
    assertTrue(stderr().contains("HADOOP-19212): run the Spark job on Java 17 or 21"), stderr());
    assertFalse(stderr().contains("\tat "), stderr());
    assertFalse(Files.exists(temp.resolve("out")));
  }

  @Test
  void badUsageIsReportedBeforeSparkStarts() throws IOException {
    Path words = Files.writeString(temp.resolve("words"), "a\nb\n");
    Files.createDirectories(temp.resolve("full")).resolve("x").toFile().createNewFile();
    assertAnswers(2, "full exists: a sharded store is written once", "spark-job", temp.resolve("full").toString(), "--input", words.toString());
    assertAnswers(2, "--rows is for generated rows", "spark-job", temp.resolve("o").toString(), "--input", words.toString(), "--rows", "5");
    assertAnswers(2, "--shards must be in [1, 65536], got 0", "spark-job", temp.resolve("o").toString(), "--shards", "0");
    assertAnswers(2, "--rows must be at least 1, got 0", "spark-job", temp.resolve("o").toString(), "--rows", "0");
    assertAnswers(2, "no such file or directory", "spark-job", temp.resolve("o").toString(), "--input", temp.resolve("nope").toString());
    assertAnswers(2, "is a directory", "spark-job", temp.resolve("o").toString(), "--input", temp.toString());
    assertAnswers(2, "Missing required parameter: 'OUT'", "spark-job");
    assertAnswers(2, "no manifest: not a sharded store", "serve", temp.toString(), "a");
    assertAnswers(2, "Missing required parameter: 'KEY'", "serve", temp.toString());
    assertFalse(Files.exists(temp.resolve("o")));
  }
}
