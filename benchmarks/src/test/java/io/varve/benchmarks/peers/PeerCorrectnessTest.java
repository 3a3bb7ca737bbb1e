package io.varve.benchmarks.peers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every system of the comparison stores and returns what it was given, and applies the 10 % batch:
 * checked key by key against a {@link HashMap}, on fixed-size synthetic records and on text rows
 * with non-ASCII keys, an empty value and a repeated key.
 */
class PeerCorrectnessTest {
  @TempDir Path temp;

  static Stream<Arguments> systemsAndDatasets() throws Exception {
    return Stream.concat(Peers.all().stream(), Peers.prototypes().stream())
        .flatMap(peer -> Stream.of(Arguments.of(peer.name(), "synthetic"), Arguments.of(peer.name(), "tsv")));
  }

  private Dataset dataset(String kind) throws Exception {
    if (kind.equals("synthetic")) {
      return Dataset.parse("synthetic:20:7:3000");
    }
    Path file = temp.resolve("rows.tsv");
    StringBuilder rows = new StringBuilder("name\tversion\tsummary\n");
    long seed = 0x7AB1E5L;
    System.out.println("rows seed " + seed);
    SplittableRandom random = new SplittableRandom(seed);
    for (int r = 0; r < 2000; r++) {
      String name = (r % 7 == 0 ? "пакет-" : r % 11 == 0 ? "パッケージ" : "pkg-") + Long.toString(random.nextLong() >>> 20, 36);
      String summary = r % 13 == 0 ? "" : "summary " + "x".repeat(random.nextInt(300)) + " ✓";
      rows.append(name).append("\t1.0\t").append(summary).append('\n');
    }
    rows.append("pkg-repeated\t1.0\tfirst\npkg-repeated\t2.0\tsecond\n");
    Files.writeString(file, rows, StandardCharsets.UTF_8);
    return Dataset.parse("tsv:rows:" + file);
  }

  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("systemsAndDatasets")
  void buildsAndUpdatesLikeAHashMap(String system, String kind) throws Exception {
    Peer peer = Peers.byName(system);
    Dataset dataset = dataset(kind);
    Path base = temp.resolve("base");
    peer.build(dataset.base(), base);
    assertStoreHolds(peer, base, model(dataset.base()));
    for (Peer variant : peer.warmVariants()) {
      assertStoreHolds(variant, base, model(dataset.base()));
    }

    Path updated = temp.resolve("updated");
    peer.prepareUpdate(base, updated);
    peer.update(dataset, base, updated);
    Map<String, byte[]> merged = model(dataset.base());
    merged.putAll(model(dataset.batch()));
    assertEquals(merged.size(), dataset.merged().size(), "merged record count");
    assertEquals(merged.keySet(), model(dataset.merged()).keySet());
    assertStoreHolds(peer, updated, merged);
    assertStoreHolds(peer, base, model(dataset.base())); // the update left the base untouched
  }

  private static void assertStoreHolds(Peer peer, Path dir, Map<String, byte[]> expected) throws Exception {
    try (Peer.Reader reader = peer.open(dir); Peer.Reader other = reader.forAnotherThread()) {
      for (Map.Entry<String, byte[]> entry : expected.entrySet()) {
        byte[] key = entry.getKey().getBytes(StandardCharsets.ISO_8859_1);
        assertArrayEquals(entry.getValue(), reader.get(key), () -> peer.name() + ": key " + entry.getKey());
        assertArrayEquals(entry.getValue(), other.get(key), () -> peer.name() + " (second reader): key " + entry.getKey());
        byte[] absent = key.clone();
        absent[absent.length - 1] ^= (byte) 0x80;
        if (!expected.containsKey(new String(absent, StandardCharsets.ISO_8859_1))) {
          assertNull(reader.get(absent), () -> peer.name() + ": absent key near " + entry.getKey());
        }
      }
    }
  }

  /** Keys as ISO-8859-1 strings: one char per byte, so any bytes survive the round trip. */
  private static Map<String, byte[]> model(RecordSet records) throws Exception {
    Map<String, byte[]> model = new HashMap<>();
    records.forEach((key, value) -> model.put(new String(key, StandardCharsets.ISO_8859_1), value));
    return model;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("systems")
  void lookupBenchmarkReturnsEachQuerysValue(String system) throws Exception {
    PeerLookupBenchmark benchmark = new PeerLookupBenchmark();
    benchmark.system = system;
    benchmark.dataset = "synthetic:8:8:5000";
    benchmark.directory = "";
    benchmark.open();
    try {
      PeerLookupBenchmark.ThreadReader first = new PeerLookupBenchmark.ThreadReader();
      PeerLookupBenchmark.ThreadReader second = new PeerLookupBenchmark.ThreadReader();
      first.open(benchmark);
      second.open(benchmark);
      for (PeerLookupBenchmark.ThreadReader thread : List.of(first, second)) {
        for (int call = 0; call < 2 * benchmark.queries.length; call++) {
          int q = thread.next & (benchmark.queries.length - 1);
          assertArrayEquals(benchmark.records.value(benchmark.queryMembers[q]), benchmark.get(thread), "query " + q);
        }
      }
      first.close();
      second.close();
    } finally {
      benchmark.close();
    }
  }

  /** Every system and every variant (which {@link Peers#byName} finds too). */
  static Stream<String> systems() {
    return Peers.all().stream().flatMap(peer -> Stream.concat(Stream.of(peer), peer.warmVariants().stream())).map(Peer::name);
  }
}
