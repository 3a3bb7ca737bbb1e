package io.varve.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreReindexer;
import io.varve.core.ect.EctParameters;
import io.varve.reader.Store;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code varve reindex} and {@code varve build --block-size} end to end: stores built from TSV,
 * re-indexed between dense and sparse, then read back key by key.
 */
class ReindexCommandTest extends CommandTestSupport {
  /** Fixed so that a failure can be replayed; override with -Dvarve.test.seed=N to explore. */
  private static final long SEED = Long.getLong("varve.test.seed", 0x5EB_10CCL);

  /**
   * Records with keys of a few sizes and values from empty to a few hundred bytes, so that a 4 KiB
   * block holds from a handful to dozens of records and some records pad to a page boundary.
   */
  private static Map<String, String> randomRecords(Random random, int count) {
    Map<String, String> records = new TreeMap<>();
    while (records.size() < count) {
      String key = "key" + random.nextInt(1 << 24) + "-".repeat(random.nextInt(4));
      StringBuilder value = new StringBuilder();
      int length = random.nextInt(8) == 0 ? random.nextInt(600) : random.nextInt(40);
      for (int i = 0; i < length; i++) {
        value.append((char) ('a' + random.nextInt(26)));
      }
      records.put(key, value.toString());
    }
    return records;
  }

  private Path tsv(String name, Map<String, String> records) throws IOException {
    StringBuilder text = new StringBuilder();
    records.forEach((k, v) -> text.append(k).append('\t').append(v).append('\n'));
    return Files.writeString(temp.resolve(name + ".tsv"), text.toString(), StandardCharsets.UTF_8);
  }

  private Path build(String name, Map<String, String> records, String... options) throws IOException {
    Path store = temp.resolve(name);
    String[] args = Stream.concat(Stream.of("build", tsv(name, records).toString(), "--out", store.toString()), Stream.of(options))
        .toArray(String[]::new);
    assertEquals(0, run(args), stderr());
    return store;
  }

  @Test
  void denseToSparseAndBackKeepsEveryValue() throws IOException {
    System.out.println("ReindexCommandTest seed " + SEED + " (replay with -Dvarve.test.seed=" + SEED + ")");
    Random random = new Random(SEED);
    Map<String, String> records = randomRecords(random, 5000);
    Path dense = build("dense", records, "--index", "blocked"); // offsets: re-indexing shares the data

    Path sparse = temp.resolve("sparse");
    assertEquals(0, run("reindex", dense.toString(), "--out", sparse.toString(), "--block-size", "4096"), stderr());
    String expected = "reindexed " + dense + " -> " + sparse + ": sparse index over 4096-byte blocks, 5,000 records, index ";
    assertTrue(stdout().startsWith(expected), stdout() + " should start with " + expected);
    assertTrue(stdout().contains(" bits/key, blocks "), stdout());
    assertStore(sparse, records, 4096, random);
    try (Store store = Store.open(sparse)) {
      // No knobs given, and the kind changed: the library's sparse default.
      assertEquals(StoreReindexer.DEFAULT_SPARSE_INDEX, store.meta().indexParameters());
      // A fraction of a bit per key is the point of a sparse index.
      assertTrue(store.stats().indexBitsPerKey() < 1, store.stats().toString());
    }
    // The data file is shared, not rewritten, and the source store is left as it was.
    assertEquals(Files.size(dense.resolve("data")), Files.size(sparse.resolve("data")));
    assertStore(dense, records, 0, random);

    assertEquals(0, run("stats", sparse.toString()), stderr());
    assertTrue(stdout().contains("4096-byte blocks"), stdout());
    assertTrue(stdout().contains("block table"), stdout());
    assertEquals(0, run("stats", sparse.toString(), "--json"), stderr());
    assertTrue(stdout().contains("\"blockBytes\":4096"), stdout());
    assertEquals(0, run("stats", dense.toString()), stderr());
    assertFalse(stdout().contains("blocks"), stdout());
    assertEquals(0, run("verify", sparse.toString()), stderr());

    Path back = temp.resolve("back");
    assertEquals(0, run("reindex", sparse.toString(), "--out", back.toString(), "--dense", "--skip-levels", "2"), stderr());
    assertTrue(stdout().startsWith("reindexed " + sparse + " -> " + back + ": dense ect index, 5,000 records, index "), stdout());
    assertTrue(stdout().contains(" bits/key, offsets "), stdout());
    assertStore(back, records, 0, random);
    try (Store store = Store.open(back)) {
      // One knob given: an ECT index, the other knobs from the dense ECT default.
      EctParameters d = StoreBuilder.DEFAULT_ECT_INDEX;
      assertEquals(new EctParameters(d.bucketSize(), d.huffmanMax(), 2), store.meta().indexParameters());
    }

    // The size written with a unit, and sparse to sparse keeping the store's knobs.
    Path again = temp.resolve("again");
    assertEquals(0, run("reindex", sparse.toString(), "--out", again.toString(), "--block-size", "4KiB"), stderr());
    assertStore(again, records, 4096, random);
    try (Store store = Store.open(again)) {
      assertEquals(StoreReindexer.DEFAULT_SPARSE_INDEX, store.meta().indexParameters());
    }
    assertNoLeftovers();
  }

  /** Into pages and back out: the records are written anew, and every value stays. */
  @Test
  void denseToPagedAndBackKeepsEveryValue() throws IOException {
    Random random = new Random(SEED + 7);
    Map<String, String> records = randomRecords(random, 5000);
    Path dense = build("dense", records);
    Path paged = temp.resolve("paged");
    assertEquals(0, run("reindex", dense.toString(), "--out", paged.toString(), "--dense", "--index", "paged"), stderr());
    assertTrue(
        stdout().startsWith("reindexed " + dense + " -> " + paged + ": paged, 5,000 records, page table "), stdout());
    assertTrue(stdout().contains("(4096-byte pages)"), stdout());
    assertStore(paged, records, 0, random);
    try (Store store = Store.open(paged)) {
      assertTrue(store.meta().isPaged());
      assertTrue(store.stats().memoryBitsPerKey() < 2, store.stats().toJson());
    }
    assertEquals(0, run("verify", paged.toString()), stderr());
    Path back = temp.resolve("back");
    assertEquals(0, run("reindex", paged.toString(), "--out", back.toString(), "--dense"), stderr());
    assertTrue(stdout().startsWith("reindexed " + paged + " -> " + back + ": dense blocked index, 5,000 records"), stdout());
    assertStore(back, records, 0, random);
    assertNoLeftovers();
  }

  @Test
  void buildWithBlockSizeWritesASparseStore() throws IOException {
    Random random = new Random(SEED + 1);
    Map<String, String> records = randomRecords(random, 3000);

    Path sparse = build("sparse", records, "--block-size", "4k");
    assertTrue(stdout().contains("3,000 records") && stdout().contains("sparse index over 4096-byte blocks"), stdout());
    assertStore(sparse, records, 4096, random);
    try (Store store = Store.open(sparse)) {
      // No knobs given: indexParameters was not called, so the builder's sparse default applies.
      assertEquals(StoreReindexer.DEFAULT_SPARSE_INDEX, store.meta().indexParameters());
    }

    // Without alignment any power of two from 512 bytes will do; knobs given are passed on, the
    // others filled from the sparse default.
    Path unaligned = build("unaligned", records, "--page-alignment", "0", "--block-size", "8192", "--bucket-size", "512");
    assertStore(unaligned, records, 8192, random);
    try (Store store = Store.open(unaligned)) {
      EctParameters s = StoreReindexer.DEFAULT_SPARSE_INDEX;
      assertEquals(new EctParameters(512, s.huffmanMax(), s.skipLevels()), store.meta().indexParameters());
      assertEquals(0, store.meta().pageBytes());
    }

    Path small = build("small", records, "--page-alignment", "1k", "--block-size", "1024");
    assertStore(small, records, 1024, random);

    // Dense builds are as before: the dense default knobs, or those given.
    Path dense = build("dense", records, "--skip-levels", "1");
    assertStore(dense, records, 0, random);
    try (Store store = Store.open(dense)) {
      assertEquals(new EctParameters(64, 64, 1), store.meta().indexParameters());
    }
    assertNoLeftovers();
  }

  @Test
  void badBlockSizeExitsTwoAndLeavesNoStore() throws IOException {
    Map<String, String> records = randomRecords(new Random(SEED + 2), 500);
    Path dense = build("dense", records);
    Path target = temp.resolve("out");

    assertEquals(2, run("reindex", dense.toString(), "--out", target.toString(), "--block-size", "8192"));
    assertTrue(stderr().contains("varve reindex: block size 8192 does not suit a store aligned to 4096-byte pages"), stderr());
    assertFalse(Files.exists(target));
    assertEquals(2, run("reindex", dense.toString(), "--out", target.toString(), "--block-size", "3000"));
    assertTrue(stderr().contains("block size 3000 does not suit"), stderr());
    assertFalse(Files.exists(target));
    assertEquals(2, run("reindex", dense.toString(), "--out", target.toString(), "--block-size", "0"));
    assertTrue(stderr().contains("--block-size must be a power of two from 512 bytes to 1m, got 0"), stderr());
    assertEquals(2, run("reindex", dense.toString(), "--out", target.toString(), "--block-size", "four"));
    assertTrue(stderr().contains("Invalid value for option '--block-size': expects a size"), stderr());

    assertEquals(2, run("reindex", dense.toString(), "--out", target.toString()));
    assertTrue(stderr().contains("Missing required argument (specify one of these): (--block-size=N | --dense)"), stderr());
    assertEquals(2, run("reindex", dense.toString(), "--out", target.toString(), "--dense", "--block-size", "4096"));
    assertTrue(stderr().contains("--block-size=N, --dense are mutually exclusive"), stderr());
    assertEquals(2, run("reindex", dense.toString(), "--dense"));
    assertTrue(stderr().contains("Missing required option: '--out=OUT'") && stderr().contains("'varve reindex --help'"), stderr());
    assertEquals(2, run("reindex", dense.toString(), "--out", target.toString(), "--dense", "--colour", "blue"));
    assertTrue(stderr().contains("unknown option --colour"), stderr());
    assertFalse(Files.exists(target));

    // The builder refuses a block size that does not match its page alignment before reading input.
    assertEquals(2, run("build", tsv("in", records).toString(), "--out", target.toString(), "--block-size", "8192"));
    assertTrue(stderr().contains("varve build: block size 8192 does not suit page alignment 4096"), stderr());
    assertFalse(Files.exists(target));
    assertEquals(2, run("build", tsv("in", records).toString(), "--out", target.toString(), "--page-alignment", "100"));
    assertTrue(stderr().contains("page alignment must be 0 or a power of two"), stderr());
    assertFalse(Files.exists(target));
    assertNoLeftovers();
  }

  @Test
  void missingDamagedOrExistingStores() throws IOException {
    Path target = temp.resolve("out");
    assertEquals(2, run("reindex", temp.resolve("none").toString(), "--out", target.toString(), "--block-size", "4096"));
    assertTrue(stderr().contains("no such file or directory") && stderr().contains("not a store directory"), stderr());
    // The same words as get for the same mistake.
    String reindexMessage = stderr().substring(stderr().indexOf(':'));
    assertEquals(2, run("get", temp.resolve("none").toString(), "k"));
    assertEquals(stderr().substring(stderr().indexOf(':')), reindexMessage);

    Path dense = build("dense", randomRecords(new Random(SEED + 3), 500));
    assertEquals(2, run("reindex", dense.toString(), "--out", dense.toString(), "--block-size", "4096"));
    assertTrue(stderr().contains("already exists"), stderr());
    assertEquals(2, run("reindex", dense.toString(), "--out", temp.resolve("no/such/parent").toString(), "--dense"));
    assertTrue(stderr().contains("no such file or directory"), stderr());

    try (FileChannel data = FileChannel.open(dense.resolve("data"), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      data.read(b, 4096 + 22);
      b.put(0, (byte) (b.get(0) ^ 0x40));
      b.rewind();
      data.write(b, 4096 + 22);
    }
    assertEquals(1, run("reindex", dense.toString(), "--out", target.toString(), "--block-size", "4096"));
    assertTrue(stderr().contains("varve reindex: damaged store"), stderr());
    assertFalse(Files.exists(target));
    assertEquals(1, run("reindex", dense.toString(), "--out", target.toString(), "--dense"));
    assertTrue(stderr().contains("damaged store"), stderr());
    assertFalse(Files.exists(target));
    assertNoLeftovers();
  }

  @Test
  void emptyStoreReindexes() throws IOException {
    Path empty = build("empty", Map.of());
    Path sparse = temp.resolve("sparse");
    assertEquals(0, run("reindex", empty.toString(), "--out", sparse.toString(), "--block-size", "4096"), stderr());
    assertTrue(stdout().contains(": sparse index over 4096-byte blocks, 0 records, index 0.000 bits/key"), stdout());
    try (Store store = Store.open(sparse)) {
      assertEquals(0, store.size());
      assertNull(store.get(bytes("anything")));
    }
  }

  /** Every record found with its value, a few absent keys not found, and the index kind as expected. */
  private static void assertStore(Path dir, Map<String, String> records, int blockBytes, Random random) throws IOException {
    try (Store store = Store.open(dir)) {
      assertEquals(records.size(), store.size());
      assertEquals(blockBytes, store.stats().blockBytes(), dir.toString());
      records.forEach((k, v) -> assertEquals(v, string(store.get(bytes(k))), k));
      for (int i = 0; i < 1000; i++) {
        String absent = "absent" + random.nextInt();
        assertNull(store.get(bytes(absent)), absent);
      }
    }
  }



}
