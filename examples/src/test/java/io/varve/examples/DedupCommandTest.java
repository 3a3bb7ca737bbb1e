package io.varve.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DedupCommandTest extends CommandTestSupport {
  private Path files;
  private byte[] block;

  /** A folder of three files: a random MiB, a copy of it, and the copy shifted by 100 bytes. */
  @BeforeEach
  void files() throws IOException {
    files = Files.createDirectories(temp.resolve("files"));
    block = new byte[1 << 20];
    new SplittableRandom(1).nextBytes(block);
    Files.write(files.resolve("a.bin"), block);
    Files.write(files.resolve("b.bin"), block);
    byte[] shifted = new byte[100 + block.length];
    System.arraycopy(block, 0, shifted, 100, block.length);
    Files.write(Files.createDirectories(files.resolve("sub")).resolve("c.jar"), shifted);
  }

  /** The redundancy the command printed, in percent. */
  private double redundancy() {
    String line = stdout().lines().filter(l -> l.trim().startsWith("redundancy")).findFirst().orElseThrow();
    return Double.parseDouble(line.trim().split("\\s+")[1].replace("%", ""));
  }

  @Test
  void findsTheCopies() {
    assertEquals(0, run("dedup", files.toString(), "--check"), stderr());
    String text = stdout();
    assertTrue(text.contains("3 files"), text);
    assertTrue(text.contains(String.format("%,d bytes", 3L * block.length + 100)), text);
    // The second copy is all redundant, the shifted one all but its first chunk or two.
    double expected = 100.0 * 2 / 3;
    assertTrue(redundancy() > expected - 5 && redundancy() <= expected, text);
    assertTrue(text.contains("0 chunks seen by one index only, 0 at other addresses"), text);
    assertTrue(text.contains("chunks/s") && text.contains("MB/s"), text);
  }

  @Test
  void aHashMapIndexFindsTheSame() {
    assertEquals(0, run("dedup", files.toString(), "--index", "hashmap"), stderr());
    double bufferHash = redundancyOf("dedup", files.toString());
    assertEquals(bufferHash, redundancyOf("dedup", files.toString(), "--index", "hashmap"));
    assertTrue(stdout().contains("HashMap (in memory)"), stdout());
  }

  private double redundancyOf(String... args) {
    assertEquals(0, run(args), stderr());
    return redundancy();
  }

  /** An index kept in --dir remembers a run's chunks in the next: the same files again are all redundant. */
  @Test
  void anIndexInADirectoryIsKeptForTheNextRun() throws IOException {
    Path index = temp.resolve("index");
    assertEquals(0, run("dedup", files.resolve("a.bin").toString(), "--dir", index.toString(), "--log", "1m", "--memory", "256k"),
        stderr());
    assertEquals(0.0, redundancy());
    assertTrue(Files.isDirectory(index));
    assertEquals(0, run("dedup", files.resolve("b.bin").toString(), "--dir", index.toString(), "--memory", "256k"), stderr());
    assertEquals(100.0, redundancy(), stdout());
    assertTrue(stdout().contains("budgets      log 1.0 MiB on disk, RAM 256.0 KiB"), stdout());
  }

  @Test
  void bufferHashReportsItsBudgetsAndReads() {
    // Small chunks, so that buffers fill and flushes write incarnations to the log.
    assertEquals(0, run("dedup", files.toString(), "--log", "2m", "--min", "64", "--avg", "256", "--max", "1k", "--check"), stderr());
    String text = stdout();
    assertTrue(text.contains("0 chunks seen by one index only, 0 at other addresses"), text);
    assertTrue(!text.contains(" 0 flushes"), text);
    assertTrue(text.contains("budgets      log 2.0 MiB on disk"), text);
    assertTrue(text.contains("RAM is ") && text.contains("of the index's size"), text);
    assertTrue(text.contains("SSD reads each") && text.contains("0 incarnations evicted"), text);
  }

  @Test
  void takesFilesAndFoldersAndChunkSizes() {
    assertEquals(0, run("dedup", files.resolve("a.bin").toString(), files.resolve("b.bin").toString(),
        "--min", "1k", "--avg", "4k", "--max", "16k"), stderr());
    assertTrue(stdout().contains("2 files"), stdout());
    assertTrue(stdout().contains("1k min, 4k average, 16k max"), stdout());
    assertEquals(50.0, redundancy());
  }

  @Test
  void doesNotFollowSymbolicLinks() throws IOException {
    Files.createSymbolicLink(files.resolve("link.bin"), files.resolve("a.bin"));
    assertEquals(0, run("dedup", files.toString()), stderr());
    assertTrue(stdout().contains("3 files"), stdout());
  }

  @Test
  void helpListsTheOptions() {
    assertEquals(0, run("dedup", "--help"));
    assertTrue(stdout().contains("Usage: Examples dedup") && stdout().contains("[PATH...]"), stdout());
    for (String option : new String[] {"--min=SIZE", "--avg=SIZE", "--max=SIZE", "--index=bufferhash|hashmap", "--log=SIZE",
        "--memory=SIZE", "--dir=DIR", "--check"}) {
      assertTrue(stdout().contains(option), option + " in\n" + stdout());
    }
  }

  @Test
  void listsFilesInNameOrderWithASuffix() throws IOException {
    assertEquals(List.of(files.resolve("sub/c.jar")), DedupCommand.files(List.of(files), ".jar"));
    assertEquals(List.of(files.resolve("a.bin"), files.resolve("b.bin"), files.resolve("sub/c.jar")),
        DedupCommand.files(List.of(files), ""));
  }

  @Test
  void anEmptyFolderIsARunOfNothing() throws IOException {
    Path empty = Files.createDirectories(temp.resolve("empty"));
    assertEquals(0, run("dedup", empty.toString()), stderr());
    assertTrue(stdout().contains("0 files") && stdout().contains("0.00% of bytes"), stdout());
  }

  @Test
  void badUsageSaysWhatIsWrong() {
    String folder = files.toString();
    assertAnswers(2, "no such file or directory", "dedup", temp.resolve("missing").toString());
    assertAnswers(2, "the average chunk size must be a power of two", "dedup", folder, "--avg", "6000");
    assertAnswers(2, "the minimum chunk size must be", "dedup", folder, "--min", "64k");
    assertAnswers(2, "--index must be bufferhash or hashmap", "dedup", folder, "--index", "btree");
    assertAnswers(2, "--log, --memory and --dir are for --index bufferhash", "dedup", folder, "--index", "hashmap", "--log", "1m");
    assertAnswers(2, "Invalid value for option '--min': expects a size such as 4k, 256m or 1g, got 'lots'", "dedup", folder, "--min", "lots");
    assertAnswers(2, "--max must be in [1, 2147483647], got 0", "dedup", folder, "--max", "0");
    assertAnswers(2, "--log must be at least 64k, got 1k", "dedup", folder, "--log", "1k");
    assertAnswers(2, "--dir is empty", "dedup", folder, "--dir", "");
    assertAnswers(2, "Invalid value for option '--check': 'yes' is not a boolean", "dedup", folder, "--check=yes");
    // Too little RAM for the log: BufferHash's tuning says which knob to change.
    assertAnswers(2, "raise memoryBytes", "dedup", folder, "--log", "1g", "--memory", "64k");
  }
}
