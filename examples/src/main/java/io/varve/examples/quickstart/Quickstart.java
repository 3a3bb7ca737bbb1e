package io.varve.examples.quickstart;

import io.varve.builder.BuildSummary;
import io.varve.builder.DuplicatePolicy;
import io.varve.builder.StoreBuilder;
import io.varve.builder.TypedStoreBuilder;
import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.serial.Serializers;
import io.varve.reader.Store;
import io.varve.reader.StoreStats;
import io.varve.reader.TypedStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The README's quickstart as a program: build a store, serve it, and the same with typed keys and values. */
public final class Quickstart {
  public static void main(String[] args) throws IOException {
    Path stores = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("varve-quickstart");
    Path dir = stores.resolve("2026-11-22");                       // must not exist yet; its parent must

    // Build: records in any order, any number (spills sorted runs to disk beyond the memory budget).
    try (StoreBuilder builder = StoreBuilder.create(dir)
        .memoryBudget(256L << 20)                                  // default 256 MiB (a quarter of a smaller heap)
        .duplicates(DuplicatePolicy.LAST_WINS)                     // default FAIL: DuplicateKeyException names the key
        .pageAlignment(4096)                                       // default: a record <= 4 KiB never crosses a page
        .recordChecksums(true)                                     // default: every lookup checks its record
        .indexParameters(BlockedIndexParameters.DEFAULT)           // default: one 128-byte block read per lookup
        .listener((phase, done, total) -> System.err.println(phase + " " + done + "/" + total))) {
      for (int i = 0; i < 100_000; i++) {
        builder.put(bytes("user:" + i), bytes("{\"visits\":" + i + "}")); // byte[] keys and values, empty allowed
      }
      BuildSummary summary = builder.build();                      // the directory appears complete, or not at all
      System.out.println("built " + summary.meta().recordCount() + " records");
    }

    // Serve: thread-safe, one read of the data file per lookup.
    try (Store store = Store.open(dir)) {
      byte[] key = bytes("user:42");
      byte[] value = store.get(key);                               // null when absent
      byte[] buffer = new byte[64];
      int length = store.get(key, 0, key.length, buffer, 0);       // no allocation: -1 when absent
      long id = store.indexOf(key);                                // dense id in [0, size()) or -1
      byte[][] keys = {bytes("user:1"), bytes("user:2"), bytes("nobody")};
      byte[][] values = new byte[keys.length][];
      store.getAll(keys, values);                                  // multi-get: overlaps the reads of 16 lookups
      byte[] k = store.keyAt(id);                                  // records by position in hash order
      StoreStats stats = store.stats();                            // records, bytes, bits per key of each part
      System.out.println(new String(value, StandardCharsets.UTF_8) + " " + length + " " + new String(k, StandardCharsets.UTF_8)
          + " " + (values[2] == null) + " " + stats.memoryBitsPerKey() + " bits/key in memory");
    }

    // A store that fits in memory and must be fast from the first lookup: Store.load copies the
    // records into memory (outside the heap); Store.openWithoutIndex serves without the index.
    try (Store loaded = Store.load(dir); Store recovery = Store.openWithoutIndex(dir)) {
      System.out.println(loaded.contains(bytes("user:7")) + " " + recovery.contains(bytes("user:7")));
    }

    // Typed keys and values: the serializers' names are recorded in the store and checked on open.
    Path typed = stores.resolve("counts");
    try (TypedStoreBuilder<String, Long> builder =
        TypedStoreBuilder.of(StoreBuilder.create(typed), Serializers.utf8(), Serializers.int64())) {
      builder.put("apples", 3L).build();
    }
    try (TypedStore<String, Long> counts = TypedStore.of(Store.open(typed), Serializers.utf8(), Serializers.int64())) {
      System.out.println("apples: " + counts.get("apples"));
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
