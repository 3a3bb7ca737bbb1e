package io.varve.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.store.KeyMode;
import io.varve.reader.Store;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --key-mode} end to end: stores built and merged with signatures or no keys, read back
 * with {@link Store} and with {@code get}, {@code stats}, {@code verify} and {@code dump}.
 */
class KeyModeCommandTest extends CommandTestSupport {
  /** Fixed so that a failure can be replayed; override with -Dvarve.test.seed=N to explore. */
  private static final long SEED = Long.getLong("varve.test.seed", 0x6E7_5EEDL);

  private Random random;

  @BeforeEach
  void reset() {
    System.out.println("KeyModeCommandTest seed " + SEED + " (replay with -Dvarve.test.seed=" + SEED + ")");
    random = new Random(SEED);
  }

  private Path writeTsv(String name, Map<String, String> records) throws IOException {
    StringBuilder tsv = new StringBuilder();
    records.forEach((k, v) -> tsv.append(k).append('\t').append(v).append('\n'));
    return write(name, tsv.toString());
  }

  /** Keys of varied lengths and values of varied lengths, so that records are variable-size. */
  private Map<String, String> randomRecords(int count, String keyPrefix) {
    Map<String, String> records = new TreeMap<>();
    while (records.size() < count) {
      records.put(keyPrefix + Long.toString(random.nextLong() >>> random.nextInt(60), 36), "v" + random.nextInt(1 << random.nextInt(30)));
    }
    return records;
  }

  private Path build(String name, Map<String, String> records, String... options) throws IOException {
    Path store = temp.resolve(name);
    List<String> args = new ArrayList<>(List.of("build", writeTsv(name + ".tsv", records).toString(), "--out", store.toString()));
    args.addAll(List.of(options));
    assertEquals(0, run(args.toArray(String[]::new)), stderr());
    return store;
  }

  @Test
  void buildWithSignatureOrNoKeysThenGetStatsVerifyDump() throws IOException {
    Map<String, String> records = randomRecords(2500, "k");
    List<String> absent = new ArrayList<>(randomRecords(2000, "absent-").keySet());
    for (KeyMode mode : List.of(KeyMode.signature(8), KeyMode.NONE)) {
      Path store = build(mode.kind().name(), records, "--key-mode", mode.toString());
      assertTrue(stdout().contains("2,500 records") && stdout().contains("keys kept as " + mode), stdout());

      try (Store result = Store.open(store)) {
        assertEquals(mode, result.meta().keyMode());
        assertEquals(records.size(), result.size());
        records.forEach((k, v) -> assertEquals(v, string(result.get(bytes(k))), k));
        if (mode.kind() == KeyMode.Kind.SIGNATURE) {
          // 2^-8 per absent key: about 8 of 2000 found; far more means signatures are not compared.
          long found = absent.stream().filter(k -> result.get(bytes(k)) != null).count();
          assertTrue(found < 40, found + " of " + absent.size() + " absent keys found");
        }
      }
      List<String> some = new ArrayList<>(records.keySet()).subList(0, 5);
      List<String> args = new ArrayList<>(List.of("get", "--values", store.toString()));
      args.addAll(some);
      assertEquals(0, run(args.toArray(String[]::new)), stderr());
      StringBuilder values = new StringBuilder();
      some.forEach(k -> values.append(records.get(k)).append('\n'));
      assertEquals(values.toString(), stdout());

      assertEquals(0, run("stats", store.toString()), stderr());
      String expected =
          mode.kind() == KeyMode.Kind.NONE
              ? "keys             none (lookups of absent keys are undefined)"
              : "keys             signature:8 (absent keys found with probability 2^-8)";
      assertTrue(stdout().contains(expected), stdout());
      assertTrue(stdout().contains("hashes           "), stdout());
      assertEquals(0, run("stats", store.toString(), "--json"), stderr());
      assertTrue(stdout().contains("\"keyMode\":\"" + mode + "\",\"metadata\":{"), stdout());

      assertEquals(0, run("verify", store.toString()), stderr());
      assertTrue(stdout().startsWith("ok:") && stdout().contains("every key's kept hash finds its record"), stdout());

      // No keys to print: rank<TAB>value, the value being the record's at that rank.
      assertEquals(0, run("dump", store.toString()), stderr());
      assertTrue(stderr().contains("keeps no full keys") && stderr().contains("rank<TAB>value"), stderr());
      String[] lines = stdout().split("\n");
      assertEquals(records.size(), lines.length);
      try (Store result = Store.open(store)) {
        for (int i = 0; i < lines.length; i++) {
          assertEquals(i + "\t" + string(result.valueAt(i)), lines[i]);
        }
      }
      assertEquals(0, run("dump", store.toString(), "--limit", "3"), stderr());
      assertEquals(3, stdout().split("\n").length, stdout());

      // Without full keys the records cannot be binary-searched: the library says so, exit 2.
      for (String command : new String[] {"get", "verify", "dump"}) {
        String[] commandArgs =
            command.equals("get")
                ? new String[] {command, store.toString(), "--no-index", some.get(0)}
                : new String[] {command, store.toString(), "--no-index"};
        assertEquals(2, run(commandArgs), command);
        assertTrue(stderr().startsWith("varve " + command + ": ") && stderr().contains("keeps no full keys")
            && stderr().contains("cannot be searched without its index"), stderr());
        assertFalse(stderr().contains("Exception"), stderr());
        assertEquals("", stdout());
      }
    }

    Path full = build("full", records);
    assertFalse(stdout().contains("keys kept as"), stdout());
    assertEquals(0, run("stats", full.toString()), stderr());
    assertTrue(stdout().contains("keys             full\n"), stdout());
    assertFalse(stdout().contains("hashes  "), stdout());
    try (Store result = Store.open(full)) {
      assertEquals(KeyMode.FULL, result.meta().keyMode());
    }
  }

  @Test
  void fixedSizeRecordsWithoutKeysAndAReindexedCopy() throws IOException {
    // Keys of many lengths but values of one: without keys the records are all of one size.
    Map<String, String> records = new TreeMap<>();
    while (records.size() < 500) {
      records.put("key" + random.nextInt(1_000_000_000), String.format("%06d", random.nextInt(1_000_000)));
    }
    Path none = build("none", records, "--key-mode", "none");
    assertEquals(0, run("stats", none.toString()), stderr());
    assertTrue(stdout().contains("fixed-size: no keys, 6-byte values"), stdout());
    Path signature = build("signature", records, "--key-mode", "signature:12");
    assertEquals(0, run("stats", signature.toString()), stderr());
    assertTrue(stdout().contains("fixed-size: 2-byte signatures, 6-byte values"), stdout());

    // The kept hashes let the store be re-indexed; a sparse index still needs full keys.
    Path dense = temp.resolve("dense");
    assertEquals(0, run("reindex", signature.toString(), "--out", dense.toString(), "--dense", "--bucket-size", "32"), stderr());
    try (Store result = Store.open(dense)) {
      assertEquals(KeyMode.signature(12), result.meta().keyMode());
      records.forEach((k, v) -> assertEquals(v, string(result.get(bytes(k))), k));
    }
    Path sparse = temp.resolve("sparse");
    assertEquals(2, run("reindex", signature.toString(), "--out", sparse.toString(), "--block-size", "4k"));
    assertTrue(stderr().contains("a sparse index needs full keys"), stderr());
    assertFalse(Files.exists(sparse));
  }

  @Test
  void mergeOfASignatureStoreKeepsItsMode() throws IOException {
    Map<String, String> base = MergeModel.randomBase(random, 3000);
    Path store = build("base", base, "--key-mode", "signature:8");

    // As in MergeCommandTest: keys from twice the base's range, some in both files.
    MergeModel model = MergeModel.randomBatch(base, random, 1500, 700);
    StringBuilder deletesTsv = new StringBuilder();
    model.deletes.forEach(op -> deletesTsv.append(op.key()).append('\n'));
    Map<String, String> expected = model.expected;
    Path up = write("up.tsv", model.upsertsTsv());
    Path del = write("del.tsv", deletesTsv.toString());

    Path merged = temp.resolve("merged");
    assertEquals(0, run("merge", store.toString(), "--out", merged.toString(), "--upserts", up.toString(),
        "--deletes", del.toString(), "--memory", "2m"), stderr());
    // The merger matches keys by their hashes, which a signature store keeps: the counts are exact.
    String counts = model.countsLine();
    assertTrue(stdout().contains(counts) && stdout().contains("keys kept as signature:8"), stdout() + " should contain " + counts);
    assertSignatureStore(merged, 8, expected);
    assertEquals(0, run("verify", merged.toString()), stderr());

    // Asking for the mode it has anyway is fine; asking for keys back, or another mode, is not.
    Path same = temp.resolve("same");
    assertEquals(0, run("merge", store.toString(), "--out", same.toString(), "--upserts", up.toString(),
        "--deletes", del.toString(), "--key-mode", "signature:8"), stderr());
    assertSignatureStore(same, 8, expected);
    for (String mode : new String[] {"full", "none", "signature:16"}) {
      Path refused = temp.resolve("refused");
      assertEquals(2, run("merge", store.toString(), "--out", refused.toString(), "--upserts", up.toString(), "--key-mode", mode));
      assertTrue(stderr().contains("a merge cannot make them " + mode), stderr());
      assertFalse(Files.exists(refused));
    }
    assertNoLeftovers();
  }

  @Test
  void mergeOfAFullStoreThrowsKeysAway() throws IOException {
    Map<String, String> base = randomRecords(2000, "k");
    Path store = build("base", base);
    Map<String, String> batch = new TreeMap<>();
    List<String> keys = new ArrayList<>(base.keySet());
    for (int i = 0; i < 300; i++) {
      batch.put(random.nextBoolean() ? keys.get(random.nextInt(keys.size())) : "new" + random.nextInt(1_000_000), "up" + i);
    }
    Map<String, String> expected = new TreeMap<>(base);
    expected.putAll(batch);

    Path merged = temp.resolve("merged");
    assertEquals(0, run("merge", store.toString(), "--out", merged.toString(), "--upserts", writeTsv("up.tsv", batch).toString(),
        "--key-mode", "signature:8"), stderr());
    assertSignatureStore(merged, 8, expected);
    try (Store old = Store.open(store)) {
      // The base keeps its keys.
      assertEquals(KeyMode.FULL, old.meta().keyMode());
      assertEquals(keys.get(0), string(old.keyAt(old.indexOf(bytes(keys.get(0))))));
    }

    Path none = temp.resolve("none");
    assertEquals(0, run("merge", store.toString(), "--out", none.toString(), "--key-mode", "none"), stderr());
    try (Store result = Store.open(none)) {
      assertEquals(KeyMode.NONE, result.meta().keyMode());
      base.forEach((k, v) -> assertEquals(v, string(result.get(bytes(k))), k));
    }

    // Bases must keep keys alike, whatever the new store keeps.
    Path mixed = temp.resolve("mixed");
    assertEquals(2, run("merge", store.toString(), merged.toString(), "--out", mixed.toString(), "--key-mode", "signature:8"));
    assertTrue(stderr().contains("must keep keys alike"), stderr());
    assertFalse(Files.exists(mixed));
    assertNoLeftovers();
  }

  @Test
  void badKeyModesExitTwoAndLeaveNoStore() throws IOException {
    Path input = writeTsv("in.tsv", Map.of("a", "1", "b", "2"));
    Path store = temp.resolve("store");
    for (String mode : new String[] {"signature:0", "signature:65", "sig", "partial", "signature:", "signature:x",
        "signature:-1", "signature:100", "Full", "signature:8:8", ""}) {
      assertEquals(2, run("build", input.toString(), "--out", store.toString(), "--key-mode", mode), mode);
      assertTrue(
          stderr().contains(mode.isEmpty()
              ? "--key-mode expects full, none or signature:K with K from 1 to 64, got ''"
              : "--key-mode expects full, none or signature:K with K from 1 to 64, got '" + mode + "'"),
          stderr());
      assertFalse(Files.exists(store));
    }
    Path base = build("base", Map.of("a", "1"));
    assertEquals(2, run("merge", base.toString(), "--out", store.toString(), "--key-mode", "signature:65"));
    assertTrue(stderr().contains("--key-mode expects full, none or signature:K"), stderr());
    assertFalse(Files.exists(store));

    for (String mode : new String[] {"none", "signature:8"}) {
      assertEquals(2, run("build", input.toString(), "--out", store.toString(), "--key-mode", mode, "--block-size", "4k"));
      assertTrue(stderr().contains("a sparse index needs full keys: key mode " + mode + " cannot be sparse"), stderr());
      assertFalse(Files.exists(store));
    }
    assertNoLeftovers();
    // Full keys and a sparse index go together, as before.
    assertEquals(0, run("build", input.toString(), "--out", store.toString(), "--key-mode", "full", "--block-size", "4k"), stderr());
  }

  private void assertSignatureStore(Path store, int bits, Map<String, String> expected) throws IOException {
    try (Store result = Store.open(store)) {
      assertEquals(KeyMode.signature(bits), result.meta().keyMode());
      assertEquals(expected.size(), result.size());
      expected.forEach((k, v) -> assertEquals(v, string(result.get(bytes(k))), k));
    }
  }



}
