package io.varve.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.artifact.StoreArtifact;
import io.varve.core.format.FileRegion;
import io.varve.core.store.StoreFile;
import io.varve.reader.Store;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@code varve merge} and {@code varve reindex} take a {@code .varve} artifact as they take a store
 * directory, read in place: the same store comes out, and a damaged artifact exits 1 naming its entry.
 */
class ArtifactBaseCommandTest extends CommandTestSupport {
  /** Fixed so that a failure can be replayed; override with -Dvarve.test.seed=N to explore. */
  private static final long SEED = Long.getLong("varve.test.seed", 0xA27_C0DEL);

  @Test
  void mergeAndReindexAnArtifactAsItsDirectory() throws IOException {
    System.out.println("ArtifactBaseCommandTest seed " + SEED + " (replay with -Dvarve.test.seed=" + SEED + ")");
    Random random = new Random(SEED);
    Map<String, String> base = MergeModel.randomBase(random, 2_000);
    Path directory = build("base", base);
    Path artifact = pack(directory);
    MergeModel model = MergeModel.randomBatch(base, random, 800, 300);
    StringBuilder deletes = new StringBuilder();
    model.deletes.forEach(op -> deletes.append(op.key()).append('\n'));
    String upsertsFile = write("up.tsv", model.upsertsTsv()).toString();
    String deletesFile = write("del.tsv", deletes.toString()).toString();

    Path fromDirectory = temp.resolve("from-directory");
    assertEquals(0, run("merge", directory.toString(), "--out", fromDirectory.toString(), "--upserts", upsertsFile, "--deletes", deletesFile, "--record-check-salt", "9"),
        stderr());
    Path fromArtifact = temp.resolve("from-artifact");
    assertEquals(0, run("merge", artifact.toString(), "--out", fromArtifact.toString(), "--upserts", upsertsFile, "--deletes", deletesFile, "--record-check-salt", "9"),
        stderr());
    assertTrue(stdout().contains(model.countsLine()), stdout() + " should contain " + model.countsLine());
    assertEquals(-1, Files.mismatch(fromDirectory.resolve("data"), fromArtifact.resolve("data")));
    assertValues(fromArtifact, model.expected, 4_000);

    Path sparse = temp.resolve("sparse");
    assertEquals(0, run("reindex", artifact.toString(), "--out", sparse.toString(), "--block-size", "4096"), stderr());
    assertTrue(stdout().startsWith("reindexed " + artifact + " -> " + sparse + ": sparse index over 4096-byte blocks, 2,000 records"),
        stdout());
    assertValues(sparse, base, 4_000);
    assertEquals(0, run("verify", sparse.toString()), stderr());
    assertNoLeftovers();
  }

  @Test
  void anArtifactAndADirectoryMergeNewestWins() throws IOException {
    Path older = pack(build("older", Map.of("a", "1", "b", "1", "c", "1")));
    Path newer = build("newer", Map.of("b", "2", "c", "2", "d", "2"));
    Path merged = temp.resolve("merged");
    assertEquals(0, run("merge", older.toString(), newer.toString(), "--out", merged.toString(),
        "--upserts", write("up.tsv", "c\t3\n").toString()), stderr());
    assertTrue(stdout().contains("4 records (0 inserted, 1 replaced, 0 deleted, 0 deletes of absent keys, 2 superseded)"), stdout());
    assertValues(merged, Map.of("a", "1", "b", "2", "c", "3", "d", "2"), 0);
  }

  @Test
  void aDamagedArtifactExitsOneNamingItsEntryAndLeavesNoStore() throws IOException {
    Path artifact = pack(build("base", MergeModel.randomBase(new Random(SEED), 1_000)));
    FileRegion data = StoreArtifact.open(artifact).region(StoreFile.DATA.fileName());
    try (FileChannel channel = FileChannel.open(artifact, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long at = data.offset() + StoreFile.DATA_PAYLOAD_OFFSET + data.length() / 2;
      ByteBuffer b = ByteBuffer.allocate(1);
      channel.read(b, at);
      b.put(0, (byte) (b.get(0) ^ 0x40)).rewind();
      channel.write(b, at);
    }
    Path merged = temp.resolve("merged");
    assertEquals(1, run("merge", artifact.toString(), "--out", merged.toString(), "--upserts", write("up.tsv", "x\t1\n").toString()));
    assertTrue(stderr().contains("damaged store") && stderr().contains(artifact + "!/data"), stderr());
    assertFalse(Files.exists(merged));
    Path reindexed = temp.resolve("reindexed");
    assertEquals(1, run("reindex", artifact.toString(), "--out", reindexed.toString(), "--dense"));
    assertTrue(stderr().contains("damaged store") && stderr().contains(artifact + "!/data"), stderr());
    assertFalse(Files.exists(reindexed));
    assertNoLeftovers();
  }

  private Path build(String name, Map<String, String> records) throws IOException {
    StringBuilder tsv = new StringBuilder();
    new TreeMap<>(records).forEach((k, v) -> tsv.append(k).append('\t').append(v).append('\n'));
    Path store = temp.resolve(name);
    assertEquals(0, run("build", write(name + ".tsv", tsv.toString()).toString(), "--out", store.toString()), stderr());
    return store;
  }

  private Path pack(Path directory) {
    Path artifact = temp.resolve(directory.getFileName() + StoreArtifact.SUFFIX);
    assertEquals(0, run("pack", directory.toString(), "--out", artifact.toString()), stderr());
    return artifact;
  }

  /** The store holds exactly {@code expected}: keys key0 to key{range-1} absent unless expected. */
  private static void assertValues(Path store, Map<String, String> expected, int range) throws IOException {
    try (Store result = Store.open(store)) {
      assertEquals(expected.size(), result.size());
      expected.forEach((k, v) -> assertEquals(v, string(result.get(bytes(k))), k));
      for (int i = 0; i < range; i++) {
        String key = "key" + i;
        assertEquals(expected.get(key), string(result.get(bytes(key))), key);
      }
    }
  }
}
