package io.varve.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.varve.builder.BuildOptions;
import io.varve.builder.ShardedStoreBuilder;
import io.varve.builder.StoreArtifacts;
import io.varve.builder.StoreBuilder;
import io.varve.core.files.FileTrees;
import io.varve.core.shard.ShardManifest;
import io.varve.core.shard.ShardRouter;
import io.varve.core.store.KeyMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code get}, {@code stats}, {@code verify} and {@code dump} on sharded stores, against a model of
 * random records and against one store built from the same records.
 */
class ShardedCommandsTest extends CommandTestSupport {
  private static final long SEED = 0x5A4D_ED11L;
  private static final int SHARDS = 7;
  private static final long ROUTING_SEED = 42;

  private final Map<String, String> records = new LinkedHashMap<>();
  private SplittableRandom random;

  /** 2,000 random records whose keys and values mix ASCII, Greek, tabs and line breaks. */
  @BeforeEach
  void records() {
    System.out.println("ShardedCommandsTest seed " + Long.toHexString(SEED));
    random = new SplittableRandom(SEED);
    while (records.size() < 2_000) {
      records.put(text(1 + random.nextInt(12)), text(random.nextInt(30)));
    }
  }

  private String text(int length) {
    String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789αβγδ\t\n:-";
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < length; i++) {
      s.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return s.toString();
  }

  private Path sharded(String name, boolean artifacts, BuildOptions options) throws IOException {
    Path root = temp.resolve(name);
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, SHARDS, options).seed(ROUTING_SEED)) {
      if (artifacts) {
        builder.shardsAsArtifacts();
      }
      for (Map.Entry<String, String> record : records.entrySet()) {
        builder.put(bytes(record.getKey()), bytes(record.getValue()));
      }
      builder.build();
    }
    return root;
  }

  private Path sharded(String name, boolean artifacts) throws IOException {
    return sharded(name, artifacts, BuildOptions.DEFAULTS);
  }

  private Path single(String name) throws IOException {
    Path dir = temp.resolve(name);
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      for (Map.Entry<String, String> record : records.entrySet()) {
        builder.put(bytes(record.getKey()), bytes(record.getValue()));
      }
      builder.build();
    }
    return dir;
  }

  private static ShardManifest manifest(Path root) throws IOException {
    return ShardManifest.read(root.resolve(ShardManifest.FILE_NAME));
  }

  @Test
  void getAnswersAsOneStoreOfTheSameRecords() throws IOException {
    Path one = single("one");
    List<String> keys = new ArrayList<>(records.keySet());
    List<String> asked = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      asked.add(random.nextInt(6) == 0 ? "absent:" + text(8) : keys.get(random.nextInt(keys.size())));
    }
    List<String> args = new ArrayList<>(List.of("get", one.toString(), "--"));
    args.addAll(asked);
    int status = run(args.toArray(String[]::new));
    String expectedOut = stdout();
    String expectedErr = stderr();
    assertEquals(1, status, "some keys are absent");
    assertTrue(expectedOut.lines().count() > 200, expectedOut);
    for (boolean artifacts : new boolean[] {false, true}) {
      Path root = sharded(artifacts ? "artifacts" : "directories", artifacts);
      args.set(1, root.toString());
      assertEquals(status, run(args.toArray(String[]::new)), stderr());
      assertEquals(expectedOut, stdout());
      assertEquals(expectedErr, stderr());
    }
    // --values: each found value, raw, in the order asked.
    String key = keys.get(random.nextInt(keys.size()));
    assertEquals(0, run("get", temp.resolve("artifacts").toString(), "--values", "--", key), stderr());
    assertEquals(records.get(key) + "\n", stdout());
  }

  @Test
  void statsGivesTheManifestTheTotalsAndTheSpreadOverShards() throws IOException {
    Path root = sharded("users", false);
    ShardManifest manifest = manifest(root);
    assertEquals(0, run("stats", root.toString()), stderr());
    List<String> lines = stdout().lines().toList();
    int min = 0;
    int max = 0;
    for (int i = 0; i < SHARDS; i++) {
      long records = manifest.shards().get(i).records();
      min = records < manifest.shards().get(min).records() ? i : min;
      max = records > manifest.shards().get(max).records() ? i : max;
    }
    assertTrue(lines.get(0).matches("sharded store " + root + ": 7 shards \\(format version \\d+\\)"), lines.get(0));
    assertEquals("  records          2,000", lines.get(1));
    assertEquals("  shards           7 directories, routed by the keys' hashes with seed 42", lines.get(2));
    assertTrue(lines.get(3).matches("  written          \\d{4}-\\d\\d-\\d\\dT.*Z"), lines.get(3));
    assertEquals(String.format("  shard records    min %,d (shard-0000%d), mean %,.1f, max %,d (shard-0000%d); largest/mean %.3f",
        manifest.shards().get(min).records(), min, 2000 / 7.0, manifest.shards().get(max).records(), max,
        manifest.shards().get(max).records() / (2000 / 7.0)), lines.get(4));
    assertTrue(lines.get(5).startsWith("  shard bytes      min "), lines.get(5));
    assertEquals("  keys             full", lines.get(6));
    assertTrue(lines.get(8).matches("  index            \\d+\\.\\d{3} bits/key \\(paged\\)"), lines.get(8));
    assertEquals(String.format("  files            %,d bytes", manifest.totalBytes()), lines.get(lines.size() - 1));
    assertEquals(List.of(), lines.stream().filter(l -> l.startsWith("  shard ") && !l.startsWith("  shard records")
        && !l.startsWith("  shard bytes")).toList(), "no line per shard without --shards");

    // One shard packed into an artifact in its directory's stead: read alike, and counted so.
    Path third = root.resolve(ShardManifest.shardName(3));
    StoreArtifacts.pack(third, root.resolve("shard-00003.varve"));
    FileTrees.deleteTree(third);
    assertEquals(0, run("stats", root.toString(), "--shards"), stderr());
    lines = stdout().lines().toList();
    assertEquals("  shards           6 directories and 1 .varve artifact, routed by the keys' hashes with seed 42", lines.get(2));
    List<String> perShard = lines.subList(lines.size() - SHARDS, lines.size());
    for (int i = 0; i < SHARDS; i++) {
      ShardManifest.Shard shard = manifest.shards().get(i);
      String file = shard.name() + (i == 3 ? ".varve" : "/");
      assertEquals(String.format("  shard %-10d %-18s %,15d records %,18d bytes", i, file, shard.records(), shard.bytes()),
          perShard.get(i));
    }
  }

  @Test
  void statsJsonHoldsTheTotalsAndEveryShard() throws IOException {
    Path root = sharded("users", true);
    ShardManifest manifest = manifest(root);
    assertEquals(0, run("stats", root.toString(), "--json"), stderr());
    long records = -1;
    String keyMode = null;
    long shardCount = -1;
    long routingSeed = -1;
    List<String> names = new ArrayList<>();
    long shardRecords = 0;
    int artifacts = 0;
    try (JsonParser json = new JsonFactory().createParser(stdout())) {
      assertEquals(JsonToken.START_OBJECT, json.nextToken());
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        String field = json.currentName();
        json.nextToken();
        switch (field) {
          case "records" -> records = json.getLongValue();
          case "keyMode" -> keyMode = json.getText();
          case "sharded" -> {
            while (json.nextToken() == JsonToken.FIELD_NAME) {
              String name = json.currentName();
              json.nextToken();
              switch (name) {
                case "shardCount" -> shardCount = json.getLongValue();
                case "routingSeed" -> routingSeed = json.getLongValue();
                case "shards" -> {
                  while (json.nextToken() == JsonToken.START_OBJECT) {
                    while (json.nextToken() == JsonToken.FIELD_NAME) {
                      String shardField = json.currentName();
                      json.nextToken();
                      switch (shardField) {
                        case "name" -> names.add(json.getText());
                        case "records" -> shardRecords += json.getLongValue();
                        case "artifact" -> artifacts += json.getBooleanValue() ? 1 : 0;
                        default -> json.skipChildren();
                      }
                    }
                  }
                }
                default -> json.skipChildren();
              }
            }
          }
          default -> json.skipChildren();
        }
      }
      assertEquals(JsonToken.END_OBJECT, json.currentToken());
      assertEquals(null, json.nextToken());
    }
    assertEquals(2000, records);
    assertEquals("full", keyMode);
    assertEquals(SHARDS, shardCount);
    assertEquals(ROUTING_SEED, routingSeed);
    assertEquals(manifest.shards().stream().map(ShardManifest.Shard::name).toList(), names);
    assertEquals(2000, shardRecords);
    assertEquals(SHARDS, artifacts);
    assertFalse(stdout().contains("\"metadata\""), "a sharded store's stats hold no one store's metadata: " + stdout());
  }

  @Test
  void verifyChecksEveryShardAndNamesTheDamagedOne() throws IOException {
    Path root = sharded("users", false);
    assertEquals(0, run("verify", root.toString()), stderr());
    assertTrue(stdout().startsWith("ok: " + root + ", 7 shards, 2,000 records, every checksum matches and every key finds its record"),
        stdout());
    int damaged = random.nextInt(SHARDS);
    Path data = root.resolve(ShardManifest.shardName(damaged)).resolve("data");
    byte[] bytes = Files.readAllBytes(data);
    int at = 64 + random.nextInt(bytes.length - 128);
    bytes[at] ^= 0x08;
    Files.write(data, bytes);
    assertEquals(1, run("verify", root.toString()), "flipped byte " + at + " of shard " + damaged);
    assertTrue(stderr().startsWith("varve verify: damaged store: " + root + ": shard " + damaged + " (shard-0000" + damaged + ") is damaged: "),
        stderr());
    assertTrue(stderr().contains("data"), stderr());
  }

  @Test
  void dumpPrintsEveryRecordOnceShardAfterShard() throws IOException {
    Path root = sharded("users", true);
    assertEquals(0, run("dump", root.toString()), stderr());
    List<String> lines = stdout().lines().toList();
    Set<String> expected = new HashSet<>();
    records.forEach((k, v) -> expected.add(DumpCommand.escapeTsv(bytes(k)) + "\t" + DumpCommand.escapeTsv(bytes(v))));
    assertEquals(expected, new HashSet<>(lines));
    assertEquals(records.size(), lines.size());
    ShardRouter router = manifest(root).router();
    List<String> keys = new ArrayList<>(records.keySet());
    Map<String, String> byLine = new LinkedHashMap<>();
    keys.forEach(k -> byLine.put(DumpCommand.escapeTsv(bytes(k)) + "\t" + DumpCommand.escapeTsv(bytes(records.get(k))), k));
    int shard = 0;
    for (String line : lines) {
      int next = router.shardOf(bytes(byLine.get(line)));
      assertTrue(next >= shard, "shard " + next + " after shard " + shard + ": " + line);
      shard = next;
    }
    // --limit stops within a shard, or at a shard's end, as the whole dump would.
    long firstShard = manifest(root).shards().get(0).records();
    for (long limit : new long[] {0, 1, firstShard, firstShard + 1, 1999, 2000, 5000}) {
      assertEquals(0, run("dump", root.toString(), "--limit", Long.toString(limit)), stderr());
      assertEquals(lines.subList(0, (int) Math.min(limit, lines.size())), stdout().lines().toList(), "--limit " + limit);
    }
  }

  @Test
  void dumpWithoutKeysCountsRanksOnAcrossShards() throws IOException {
    Path root = sharded("keyless", false, BuildOptions.builder().keyMode(KeyMode.NONE).build());
    assertEquals(0, run("dump", root.toString()), stderr());
    assertEquals("varve dump: " + root + " keeps no full keys (key mode none): printing rank<TAB>value\n", stderr());
    List<String> lines = stdout().lines().toList();
    assertEquals(records.size(), lines.size());
    List<String> values = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      assertTrue(lines.get(i).startsWith(i + "\t"), lines.get(i));
      values.add(lines.get(i).substring(lines.get(i).indexOf('\t') + 1));
    }
    List<String> expected = new ArrayList<>();
    records.values().forEach(v -> expected.add(DumpCommand.escapeTsv(bytes(v))));
    values.sort(null);
    expected.sort(null);
    assertEquals(expected, values);
  }

  @Test
  void emptyShardsAreShardsLikeAnyOther() throws IOException {
    Path root = temp.resolve("sparse");
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, 16)) {
      builder.put(bytes("a"), bytes("1")).put(bytes("b"), bytes("22")).put(bytes("c"), bytes("333")).build();
    }
    assertEquals(0, run("stats", root.toString()), stderr());
    assertTrue(stdout().contains("  records          3\n"), stdout());
    assertTrue(stdout().matches("(?s).*  shard records    min 0 \\(shard-000\\d\\d\\), mean 0\\.2, max \\d \\(shard-000\\d\\d\\); .*"), stdout());
    assertEquals(0, run("verify", root.toString()), stderr());
    assertEquals(0, run("get", root.toString(), "c", "a", "b"), stderr());
    assertEquals("c\t333\na\t1\nb\t22\n", stdout());
    assertEquals(0, run("dump", root.toString()), stderr());
    assertEquals(Set.of("a\t1", "b\t22", "c\t333"), new HashSet<>(stdout().lines().toList()));
  }
}
