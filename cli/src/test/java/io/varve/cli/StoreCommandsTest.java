package io.varve.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The store commands end to end: build from each input format, get, stats, verify, dump, demo. */
class StoreCommandsTest extends CommandTestSupport {
  @Test
  void buildFromTsvThenGetStatsVerifyDump() throws IOException {
    Path input = write("in.tsv", "alpha\t1\nbeta\t2\nγάμμα\tτρία\n\tempty key\ntab\\tkey\tline\\nbreak\n");
    Path store = temp.resolve("store");
    // (reassigned below to a rebuilt copy after the index-free checks, which need a rank index)
    assertEquals(0, run("build", input.toString(), "--out", store.toString(), "--index", "blocked"), stderr());
    assertTrue(stdout().contains("5 records"), stdout());

    assertEquals(0, run("get", store.toString(), "alpha", "γάμμα", "tab\tkey"), stderr());
    // Key and value on each line, escaped as TSV is, so that a value with a line break stays on its line.
    assertEquals("alpha\t1\nγάμμα\tτρία\ntab\\tkey\tline\\nbreak\n", stdout());
    assertEquals(0, run("get", store.toString(), "--no-index", "--values", "alpha", "γάμμα", "tab\tkey"), stderr());
    assertEquals("1\nτρία\nline\nbreak\n", stdout());
    java.nio.file.Files.delete(store.resolve("index"));
    assertEquals(0, run("verify", store.toString(), "--no-index"), stderr());
    // The meta file lists the index: a store without it is damaged (exit 1), not a wrong path (2).
    assertEquals(1, run("get", store.toString(), "alpha"));
    assertEquals(0, run("build", input.toString(), "--out", temp.resolve("again").toString()), stderr());
    store = temp.resolve("again");
    assertEquals(1, run("get", store.toString(), "beta", "nope"));
    assertEquals("beta\t2\n", stdout());
    assertTrue(stderr().contains("nope: not found"), stderr());

    assertEquals(0, run("stats", store.toString(), "--json"));
    for (String field : new String[] {"\"records\":5", "\"dataBytes\":", "\"indexBitsPerKey\":", "\"offsetsBitsPerKey\":", "\"memoryBitsPerKey\":", "\"formatVersion\":7", "\"indexKind\":\"paged\""}) {
      assertTrue(stdout().contains(field), stdout());
    }
    assertEquals(0, run("stats", store.toString()));
    assertTrue(stdout().contains("records                 5") || stdout().contains("5"), stdout());

    assertEquals(0, run("verify", store.toString()));
    assertTrue(stdout().startsWith("ok:"), stdout());

    assertEquals(0, run("dump", store.toString()));
    String dump = stdout();
    assertEquals(5, dump.split("\n").length, dump);
    assertTrue(dump.contains("tab\\tkey\tline\\nbreak\n"), dump);
    assertTrue(dump.contains("\tempty key\n"), dump);
  }

  /** {@code pack} writes one .varve file that get, stats, verify and dump read in place, as the directory. */
  @Test
  void packThenGetStatsVerifyDumpTheArtifact() throws IOException {
    Path input = write("in.tsv", "alpha\t1\nbeta\t2\nγάμμα\tτρία\n\tempty key\n");
    Path store = temp.resolve("store");
    assertEquals(0, run("build", input.toString(), "--out", store.toString()), stderr());
    Path artifact = temp.resolve("store.varve");
    assertEquals(0, run("pack", store.toString(), "--out", artifact.toString()), stderr());
    assertTrue(stdout().startsWith("packed " + store + " into " + artifact), stdout());
    assertEquals(0, run("get", artifact.toString(), "alpha", "γάμμα"), stderr());
    assertEquals("alpha\t1\nγάμμα\tτρία\n", stdout());
    assertEquals(0, run("get", artifact.toString(), "--no-index", "--values", "beta"), stderr());
    assertEquals("2\n", stdout());
    assertEquals(1, run("get", artifact.toString(), "nope"));
    assertEquals(0, run("verify", artifact.toString()), stderr());
    assertTrue(stdout().startsWith("ok: " + artifact), stdout());
    assertEquals(0, run("stats", store.toString(), "--json"), stderr());
    String directoryStats = stdout();
    assertEquals(0, run("stats", artifact.toString(), "--json"), stderr());
    assertEquals(directoryStats.replaceAll("\"createdMillis\":[0-9]+", ""), stdout().replaceAll("\"createdMillis\":[0-9]+", ""));
    assertEquals(0, run("dump", store.toString()), stderr());
    String dump = stdout();
    assertEquals(0, run("dump", artifact.toString()), stderr());
    assertEquals(dump, stdout());
    // Packing again to the same file is refused, and the file is left as it was.
    byte[] packed = Files.readAllBytes(artifact);
    assertEquals(2, run("pack", store.toString(), "--out", artifact.toString()));
    assertTrue(stderr().contains("already exists"), stderr());
    assertTrue(java.util.Arrays.equals(packed, Files.readAllBytes(artifact)));
  }

  /** {@code --index} and the knobs of each kind; knobs alone name their kind; mixed kinds are refused. */
  @Test
  void indexKindAndKnobs() throws IOException {
    StringBuilder tsv = new StringBuilder();
    for (int i = 0; i < 3_000; i++) {
      tsv.append("k").append(i).append('\t').append(i).append('\n');
    }
    Path input = write("kinds.tsv", tsv.toString());
    String[][] cases = {
      {"paged-default", "paged", "PagedParameters"},
      {"blocked-default-knobs", "blocked", "keysPerBlock=300", "--index", "blocked"},
      {"blocked-64", "blocked", "keysPerBlock=64", "--keys-per-block", "64"},
      {"ect-default", "ect", "EctParameters[bucketSize=64, huffmanMax=64, skipLevels=3]", "--index", "ect"},
      {"ect-knob", "ect", "EctParameters[bucketSize=128, huffmanMax=64, skipLevels=3]", "--bucket-size", "128"},
      {"blocked-named", "blocked", "keysPerBlock=100", "--index", "BLOCKED", "--keys-per-block", "100"},
      {"paged", "paged", "PagedParameters", "--index", "paged"},
    };
    for (String[] c : cases) {
      Path store = temp.resolve(c[0]);
      List<String> args = new java.util.ArrayList<>(List.of("build", input.toString(), "--out", store.toString()));
      args.addAll(List.of(c).subList(3, c.length));
      assertEquals(0, run(args.toArray(String[]::new)), c[0] + ": " + stderr());
      assertEquals(0, run("stats", store.toString(), "--json"), stderr());
      assertTrue(stdout().contains("\"indexKind\":\"" + c[1] + "\""), c[0] + ": " + stdout());
      assertEquals(0, run("stats", store.toString()), stderr());
      assertTrue(
          stdout().contains(c[1].equals("ect") ? "(ECT: tries" : c[1].equals("paged") ? "(paged: a table of 4096-byte pages)" : "(blocked: "),
          c[0] + ": " + stdout());
      try (io.varve.reader.Store opened = io.varve.reader.Store.open(store)) {
        assertTrue(opened.meta().indexParameters().toString().contains(c[2]), c[0] + ": " + opened.meta().indexParameters());
      }
      assertEquals(0, run("get", "--values", store.toString(), "k0", "k2999"), stderr());
      assertEquals("0\n2999\n", stdout());
    }
    assertEquals(2, run("build", input.toString(), "--out", temp.resolve("mixed1").toString(), "--index", "blocked", "--bucket-size", "32"));
    assertTrue(stderr().contains("knobs of the ECT index"), stderr());
    assertEquals(2, run("build", input.toString(), "--out", temp.resolve("mixed2").toString(), "--skip-levels", "1", "--keys-per-block", "64"));
    assertTrue(stderr().contains("--keys-per-block is a knob of the blocked index"), stderr());
    assertEquals(2, run("build", input.toString(), "--out", temp.resolve("unknown").toString(), "--index", "trie"));
    assertTrue(stderr().contains("unknown index kind 'trie' (known: ect, blocked, paged)"), stderr());
    assertEquals(2, run("build", input.toString(), "--out", temp.resolve("range").toString(), "--keys-per-block", "8"));
    assertTrue(stderr().contains("--keys-per-block must be in [16, 640]"), stderr());
    assertEquals(2, run("build", input.toString(), "--out", temp.resolve("sparse").toString(), "--block-size", "4k", "--index", "blocked"));
    assertTrue(stderr().contains("a sparse index is an ECT index"), stderr());
    assertEquals(2, run("build", input.toString(), "--out", temp.resolve("paged-knob").toString(), "--index", "paged", "--keys-per-block", "64"));
    assertTrue(stderr().contains("a paged store has no index knobs"), stderr());
    for (String name : new String[] {"mixed1", "mixed2", "unknown", "range", "sparse", "paged-knob"}) {
      assertFalse(Files.exists(temp.resolve(name)), name + " left behind");
    }
  }

  /** How the data file reaches the kernel changes nothing in the store's bytes. */
  @Test
  void hugePageWritesBuildTheSameStore() throws IOException {
    StringBuilder tsv = new StringBuilder();
    for (int i = 0; i < 60_000; i++) {
      tsv.append("key-").append(i).append('\t').append("välue ".repeat(i % 40)).append(i).append('\n');
    }
    Path input = write("many.tsv", tsv.toString());
    Path small = temp.resolve("small");
    Path huge = temp.resolve("huge");
    assertEquals(0, run("build", input.toString(), "--out", small.toString(), "--record-check-salt", "7"), stderr());
    assertEquals(0, run("build", input.toString(), "--out", huge.toString(), "--huge-page-writes", "--record-check-salt", "7"), stderr());
    assertTrue(Files.size(huge.resolve("data")) > 4 << 20, "spans several 2 MiB writes");
    for (String file : new String[] {"data", "offsets", "index", "pages"}) {
      assertEquals(Files.exists(small.resolve(file)), Files.exists(huge.resolve(file)), file);
      if (Files.exists(small.resolve(file))) {
        assertEquals(-1L, Files.mismatch(small.resolve(file), huge.resolve(file)), file);
      }
    }
    assertEquals(0, run("verify", huge.toString()), stderr());
    assertEquals(0, run("get", "--values", huge.toString(), "key-0", "key-59999"), stderr());
    assertEquals("0\n" + "välue ".repeat(59999 % 40) + "59999\n", stdout());
  }

  @Test
  void buildFromCsvWithHeaderAndJsonLinesFromStdin() throws IOException {
    Path csv = write("in.csv", "id,name,comment\n1,\"Smith, John\",\"says \"\"hi\"\"\"\n2,Ann,\"two\nlines\"\n");
    Path store = temp.resolve("csv");
    assertEquals(0, run("build", csv.toString(), "--out", store.toString(), "--header", "--key-column", "name", "--value-column", "comment"), stderr());
    assertEquals(0, run("get", "--values", store.toString(), "Smith, John", "Ann"));
    assertEquals("says \"hi\"\ntwo\nlines\n", stdout());

    Path json = temp.resolve("json");
    byte[] lines = "{\"key\":\"k1\",\"value\":{\"n\":1}}\n{\"value\":\"v2\",\"key\":\"k\\u00e9\"}\n".getBytes(StandardCharsets.UTF_8);
    out.reset();
    err.reset();
    int status =
        assertDoesNotThrowIo(() -> Varve.run(new String[] {"build", "-", "--out", json.toString(), "--format", "jsonl", "--json-text"},
            new ByteArrayInputStream(lines), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
    assertEquals(0, status, stderr());
    assertEquals(0, run("get", "--values", json.toString(), "k1", "ké"));
    assertEquals("{\"n\":1}\nv2\n", stdout());
  }

  interface IoCall {
    int call() throws IOException;
  }

  private static int assertDoesNotThrowIo(IoCall call) throws IOException {
    return call.call();
  }

  @Test
  void badInputNamesTheLineAndLeavesNoStore() throws IOException {
    Path input = write("bad.tsv", "a\t1\nb\t2\nno-tab-here\n");
    Path store = temp.resolve("store");
    assertEquals(2, run("build", input.toString(), "--out", store.toString()));
    assertTrue(stderr().contains("line 3"), stderr());
    assertFalse(Files.exists(store));
    assertNoLeftovers();

    Path json = write("bad.jsonl", "{\"key\":\"a\",\"value\":\"1\"}\n{\"key\":\"b\"\n");
    assertEquals(2, run("build", json.toString(), "--out", store.toString()));
    assertTrue(stderr().contains("line 2"), stderr());
    assertFalse(Files.exists(store));
  }

  @Test
  void duplicatesFailByDefaultAndLastWinsOnRequest() throws IOException {
    Path input = write("dups.tsv", "k\t1\nj\t2\nk\t3\n");
    Path store = temp.resolve("store");
    assertEquals(2, run("build", input.toString(), "--out", store.toString()));
    assertTrue(stderr().contains("duplicate key \"k\""), stderr());
    assertFalse(Files.exists(store));
    assertEquals(0, run("build", input.toString(), "--out", store.toString(), "--duplicates", "last-wins"), stderr());
    assertEquals(0, run("get", "--values", store.toString(), "k"));
    assertEquals("3\n", stdout());
    assertEquals(2, run("build", input.toString(), "--out", store.toString()));
    assertTrue(stderr().contains("already exists"), stderr());
  }

  @Test
  void verifyNamesTheDamagedFile() throws IOException {
    Path input = write("in.tsv", "a\t1\nb\t2\nc\t3\n");
    Path store = temp.resolve("store");
    assertEquals(0, run("build", input.toString(), "--out", store.toString()));
    try (FileChannel data = FileChannel.open(store.resolve("data"), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
      data.read(b, 22);
      b.put(0, (byte) (b.get(0) ^ 0x40));
      b.rewind();
      data.write(b, 22);
    }
    assertEquals(1, run("verify", store.toString()));
    assertTrue(stderr().contains("data"), stderr());
    assertTrue(stderr().contains("checksum"), stderr());
  }

  @Test
  void missingStoreAndBadUsageAreReported() {
    assertEquals(2, run("get", temp.resolve("none").toString(), "k"));
    assertTrue(stderr().contains("no such file"), stderr());
    assertEquals(2, run("build", "x.tsv"));
    assertTrue(stderr().contains("Missing required option: '--out=DIR'") && stderr().contains("'varve build --help'"), stderr());
    assertEquals(2, run("build", "x.tsv", "--out", temp.resolve("o").toString(), "--duplicates", "sometimes"));
    assertTrue(stderr().contains("--duplicates expects fail or last-wins"), stderr());
    assertEquals(2, run("build", "x.tsv", "--out", temp.resolve("o").toString(), "--memory", "lots"));
    assertTrue(stderr().contains("Invalid value for option '--memory': expects a size"), stderr());
  }

  @Test
  void demoBuildsQueriesAndVerifies() {
    assertEquals(0, run("demo", "--records", "30000", "--lookups", "3000", "--memory", "4m"), stderr());
    String text = stdout();
    assertTrue(text.contains("30,000 records"), text);
    assertTrue(text.contains("(0 wrong values)"), text);
    assertTrue(text.contains("(0 false hits)"), text);
    assertTrue(text.contains("verify"), text);
    assertEquals(0, run("demo", "--records", "0", "--lookups", "10"), stderr());
    assertEquals(0, run("demo", "--records", "1", "--lookups", "10"), stderr());
  }
}
