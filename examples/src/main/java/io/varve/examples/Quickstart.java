package io.varve.examples;

import io.varve.builder.BuildSummary;
import io.varve.builder.DuplicatePolicy;
import io.varve.builder.StoreBuilder;
import io.varve.builder.TypedStoreBuilder;
import io.varve.core.serial.Serializers;
import io.varve.reader.Store;
import io.varve.reader.StoreStats;
import io.varve.reader.TypedStore;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The README's quickstart as a program: builds a store of byte-array records and one of typed
 * records, serves lookups from both, and prints what it found. {@code Examples quickstart [DIR]}
 * builds under {@code DIR} (it must not hold {@code bytes/} or {@code typed/} yet), else under a
 * temporary directory deleted at the end.
 *
 * <p>Not meant for concurrent use: it runs once.
 */
final class Quickstart {
  private Quickstart() {}

  static int run(String[] args, PrintStream out) throws IOException {
    if (args.length > 1) {
      throw new IllegalArgumentException("quickstart takes at most one argument, the directory to build under");
    }
    Path root = args.length == 1 ? Files.createDirectories(Path.of(args[0])) : Files.createTempDirectory("varve-quickstart");
    try {
      Path dir = root.resolve("bytes");
      // Build: records in any order, any number (sorted runs spill to disk beyond the memory budget).
      try (StoreBuilder builder = StoreBuilder.create(dir).memoryBudget(64L << 20).duplicates(DuplicatePolicy.LAST_WINS)) {
        for (int i = 0; i < 100_000; i++) {
          builder.put(bytes("user:" + i), bytes("{\"visits\":" + i % 97 + "}"));
        }
        builder.put(bytes("user:7"), bytes("{\"visits\":1000}"));
        BuildSummary summary = builder.build();
        out.printf("built %s: %,d records, %,d duplicate dropped%n", summary.directory(), summary.meta().recordCount(),
            summary.duplicatesDropped());
      }
      // Serve: thread-safe, one read of the data file per lookup.
      try (Store store = Store.open(dir)) {
        byte[] key = bytes("user:7");
        out.println("user:7 -> " + new String(store.get(key), StandardCharsets.UTF_8));
        out.println("user:-1 -> " + store.get(bytes("user:-1")));
        long id = store.indexOf(key);
        out.println("user:7 is record " + id + " of " + store.size() + " in hash order");
        StoreStats stats = store.stats();
        out.printf("index %.2f bits/key, offsets %.2f bits/key%n", stats.indexBitsPerKey(), stats.offsetsBitsPerKey());
      }
      // Typed keys and values through serializers (their names are recorded in the store and checked on open).
      Path typed = root.resolve("typed");
      try (TypedStoreBuilder<String, Long> builder =
          TypedStoreBuilder.of(StoreBuilder.create(typed), Serializers.utf8(), Serializers.int64())) {
        builder.put("apples", 3L).put("pears", 5L).build();
      }
      try (TypedStore<String, Long> counts = TypedStore.of(Store.open(typed), Serializers.utf8(), Serializers.int64())) {
        out.println("apples -> " + counts.get("apples") + ", plums -> " + counts.get("plums"));
      }
      return 0;
    } finally {
      if (args.length == 0) {
        Examples.deleteTree(root);
      }
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
