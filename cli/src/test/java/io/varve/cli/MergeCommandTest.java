package io.varve.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.reader.Store;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@code varve merge} end to end: stores built with {@code build}, merged, then read back. */
class MergeCommandTest extends CommandTestSupport {
  /** Fixed so that a failure can be replayed; override with -Dvarve.test.seed=N to explore. */
  private static final long SEED = Long.getLong("varve.test.seed", 0x3E46E_5EEDL);

  private Path build(String name, Map<String, String> records) throws IOException {
    StringBuilder tsv = new StringBuilder();
    records.forEach((k, v) -> tsv.append(k).append('\t').append(v).append('\n'));
    Path store = temp.resolve(name);
    assertEquals(0, run("build", write(name + ".tsv", tsv.toString()).toString(), "--out", store.toString()), stderr());
    return store;
  }

  @Test
  void upsertsAndDeletesOverABuiltStore() throws IOException {
    System.out.println("MergeCommandTest seed " + SEED + " (replay with -Dvarve.test.seed=" + SEED + ")");
    Random random = new Random(SEED);
    Map<String, String> base = MergeModel.randomBase(random, 3000);
    Path store = build("base", base);

    // Keys from twice the base's range, some in both files (MergeModel.randomBatch).
    MergeModel model = MergeModel.randomBatch(base, random, 1500, 700);
    StringBuilder deletesTsv = new StringBuilder();
    for (MergeModel.Op op : model.deletes) {
      // A keys-only line mostly; extra columns are allowed and ignored.
      deletesTsv.append(op.key()).append(random.nextInt(5) == 0 ? "\tignored\n" : "\n");
    }
    Map<String, String> expected = model.expected;
    assertTrue(
        model.inserted > 0 && model.replaced > 0 && model.deleted > 0 && model.absentDeletes > 0, model.lastOperation.toString());

    Path merged = temp.resolve("merged");
    assertEquals(
        0,
        run("merge", store.toString(), "--out", merged.toString(), "--upserts", write("up.tsv", model.upsertsTsv()).toString(),
            "--deletes", write("del.tsv", deletesTsv.toString()).toString(), "--memory", "2m"),
        stderr());
    assertTrue(stdout().startsWith("merged "), stdout());
    String counts = model.countsLine() + " from 3,000 base records and 2,200 operations (" + model.overridden()
        + " of them overridden by a later one on the same key) in ";
    assertTrue(stdout().contains(counts), stdout() + " should contain " + counts);

    try (Store result = Store.open(merged); Store old = Store.open(store)) {
      assertEquals(expected.size(), result.size());
      for (int i = 0; i < 6000; i++) {
        String key = "key" + i;
        assertEquals(expected.get(key), string(result.get(bytes(key))), key);
        // The base is left as it was.
        assertEquals(base.get(key), string(old.get(bytes(key))), key);
      }
      result.verify();
    }
    assertNoLeftovers();
  }

  @Test
  void keyInBothFilesEndsDeletedAndDeletesReadCsvAndJsonFromStdin() throws IOException {
    Path store = build("base", Map.of("a", "1", "b", "2", "c", "3"));
    Path upserts = write("up.csv", "name,comment,id\nnew b,x,b\nnew d,y,d\n");
    byte[] deletes = "{\"key\":\"b\"}\n{\"key\":\"c\",\"why\":\"gone\"}\n{\"key\":\"zz\"}\n".getBytes(StandardCharsets.UTF_8);
    Path merged = temp.resolve("merged");
    out.reset();
    err.reset();
    // Upserts from a CSV file with named columns; then, in a second merge, deletes as JSON on stdin
    // (its format has to be given: "-" has no name to infer it from).
    int status =
        Varve.run(
            new String[] {"merge", store.toString(), "--out", merged.toString(), "--upserts", upserts.toString(), "--header",
                "--key-column", "id", "--value-column", "name"},
            new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(0, status, stderr());
    assertTrue(stdout().contains("4 records (1 inserted, 1 replaced, 0 deleted"), stdout());

    Path again = temp.resolve("again");
    status =
        Varve.run(
            new String[] {"merge", merged.toString(), "--out", again.toString(), "--deletes", "-", "--format", "jsonl"},
            new ByteArrayInputStream(deletes), new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(0, status, stderr());
    try (Store result = Store.open(again)) {
      assertEquals(2, result.size());
      assertEquals("1", string(result.get(bytes("a"))));
      assertEquals("new d", string(result.get(bytes("d"))));
      assertNull(result.get(bytes("b")));
      assertNull(result.get(bytes("c")));
    }

    Path both = temp.resolve("both");
    assertEquals(0, run("merge", store.toString(), "--out", both.toString(), "--upserts", write("u.tsv", "b\tnew\nd\tnew\n").toString(),
        "--deletes", write("d.tsv", "b\nd\n").toString()), stderr());
    assertTrue(stdout().contains("2 records (0 inserted, 0 replaced, 1 deleted, 1 deletes of absent keys"), stdout());
    try (Store result = Store.open(both)) {
      assertNull(result.get(bytes("b")));
      assertNull(result.get(bytes("d")));
      assertArrayEquals(bytes("1"), result.get(bytes("a")));
      assertArrayEquals(bytes("3"), result.get(bytes("c")));
    }
  }

  @Test
  void twoBasesNewestWins() throws IOException {
    Map<String, String> older = Map.of("a", "1", "b", "1", "c", "1");
    Map<String, String> newer = Map.of("b", "2", "c", "2", "d", "2");
    Path first = build("first", older);
    Path second = build("second", newer);

    Path merged = temp.resolve("merged");
    assertEquals(0, run("merge", first.toString(), second.toString(), "--out", merged.toString(),
        "--upserts", write("up.tsv", "c\t3\n").toString()), stderr());
    assertTrue(stdout().contains("4 records (0 inserted, 1 replaced, 0 deleted, 0 deletes of absent keys, 2 superseded)"
        + " from 6 base records and 1 operations"), stdout());
    assertValues(merged, Map.of("a", "1", "b", "2", "c", "3", "d", "2"));

    // No batch at all: the bases alone, in the other order.
    Path reversed = temp.resolve("reversed");
    assertEquals(0, run("merge", second.toString(), first.toString(), "--out", reversed.toString()), stderr());
    assertTrue(stdout().contains("4 records (0 inserted, 0 replaced, 0 deleted, 0 deletes of absent keys, 2 superseded)"), stdout());
    assertValues(reversed, Map.of("a", "1", "b", "1", "c", "1", "d", "2"));
  }

  @Test
  void malformedInputExitsTwoAndLeavesNoStore() throws IOException {
    Path store = build("base", Map.of("a", "1", "b", "2"));
    Path merged = temp.resolve("merged");
    Path upserts = write("up.tsv", "a\t10\nc\t30\nno-tab-here\n");
    assertEquals(2, run("merge", store.toString(), "--out", merged.toString(), "--upserts", upserts.toString()));
    assertTrue(stderr().contains("up.tsv: line 3: 1 field, value column 1 needs at least 2"), stderr());
    assertFalse(Files.exists(merged));
    assertNoLeftovers();

    Path deletes = write("del.csv", "a\n\"b\n");
    assertEquals(2, run("merge", store.toString(), "--out", merged.toString(), "--upserts", write("ok.tsv", "c\t3\n").toString(),
        "--deletes", deletes.toString()));
    assertTrue(stderr().contains("del.csv: line 2"), stderr());
    assertFalse(Files.exists(merged));
    assertNoLeftovers();
    assertValues(store, Map.of("a", "1", "b", "2"));
  }

  @Test
  void missingOrDamagedBasesAndBadUsage() throws IOException {
    Path merged = temp.resolve("merged");
    assertEquals(2, run("merge", temp.resolve("none").toString(), "--out", merged.toString()));
    assertTrue(stderr().contains("no such file or directory") && stderr().contains("not a store directory"), stderr());

    Path store = build("base", Map.of("a", "1", "b", "2", "c", "3"));
    assertEquals(2, run("merge", store.toString(), "--out", merged.toString(), "--upserts", temp.resolve("none.tsv").toString()));
    assertTrue(stderr().contains("none.tsv"), stderr());
    assertEquals(2, run("merge", store.toString()));
    assertTrue(stderr().contains("Missing required option: '--out=DIR'") && stderr().contains("'varve merge --help'"), stderr());
    assertEquals(2, run("merge", store.toString(), "--out", merged.toString(), "--upserts", "-", "--deletes", "-"));
    assertTrue(stderr().contains("cannot both read stdin"), stderr());
    assertEquals(2, run("merge", store.toString(), "--out", store.toString()));
    assertTrue(stderr().contains("already exists"), stderr());

    try (FileChannel data = FileChannel.open(store.resolve("data"), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      data.read(b, 22);
      b.put(0, (byte) (b.get(0) ^ 0x40));
      b.rewind();
      data.write(b, 22);
    }
    assertEquals(1, run("merge", store.toString(), "--out", merged.toString(), "--upserts", write("up.tsv", "d\t4\n").toString()));
    assertTrue(stderr().contains("damaged store"), stderr());
    assertFalse(Files.exists(merged));
    assertNoLeftovers();
  }

  /**
   * A base deleted while the batch is read (an old version removed meanwhile): the merge says the
   * base is gone (exit 2), not that it is damaged and must be rebuilt (exit 1), as it did until
   * 2026-11-28.
   */
  @Test
  void aBaseDeletedWhileTheBatchIsReadIsGoneNotDamaged() throws IOException {
    Path store = build("base", Map.of("a", "1", "b", "2", "c", "3"));
    Path merged = temp.resolve("merged");
    InputStream deletingBase = new SequenceInputStream(new InputStream() {
      @Override
      public int read() throws IOException {
        try (var files = Files.walk(store)) {
          for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
            Files.delete(file);
          }
        }
        return -1;
      }
    }, new ByteArrayInputStream(bytes("d\t4\n")));
    out.reset();
    err.reset();
    int status = Varve.run(new String[] {"merge", store.toString(), "--out", merged.toString(), "--upserts", "-", "--format", "tsv"},
        deletingBase, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    assertFalse(Files.exists(store));
    assertEquals(2, status, stderr());
    assertTrue(stderr().contains("varve merge: no such file or directory: " + store + ": the store is gone"), stderr());
    assertFalse(stderr().contains("damaged"), stderr());
    assertFalse(Files.exists(merged));
    assertNoLeftovers();
  }

  private void assertValues(Path store, Map<String, String> expected) throws IOException {
    try (Store result = Store.open(store)) {
      assertEquals(expected.size(), result.size());
      expected.forEach((k, v) -> assertEquals(v, string(result.get(bytes(k))), k));
    }
  }



}
