package io.varve.builder;

import io.varve.core.store.PageCacheWrites;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.ect.EctParameters;
import io.varve.core.store.KeyMode;
import io.varve.core.store.StoreMeta;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BuildOptions}: each invalid value named in its error, combinations checked once at
 * {@code build()} whatever the order of the setters, and the builder, merger and reindexer taking
 * them alike.
 */
class BuildOptionsTest {
  @TempDir Path parent;

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Every order of {@code calls}. */
  private static List<List<Consumer<BuildOptions.Builder>>> permutations(List<Consumer<BuildOptions.Builder>> calls) {
    List<List<Consumer<BuildOptions.Builder>>> result = new ArrayList<>();
    if (calls.isEmpty()) {
      result.add(new ArrayList<>());
      return result;
    }
    for (int i = 0; i < calls.size(); i++) {
      List<Consumer<BuildOptions.Builder>> rest = new ArrayList<>(calls);
      Consumer<BuildOptions.Builder> first = rest.remove(i);
      for (List<Consumer<BuildOptions.Builder>> tail : permutations(rest)) {
        tail.add(0, first);
        result.add(tail);
      }
    }
    return result;
  }

  private static BuildOptions.Builder apply(List<Consumer<BuildOptions.Builder>> calls) {
    BuildOptions.Builder builder = BuildOptions.builder();
    calls.forEach(call -> call.accept(builder));
    return builder;
  }

  @Test
  void validCombinationsPassInEveryOrder() {
    // Each of these alone would not suit the defaults of the others (a 8 KiB block and 4 KiB pages).
    List<Consumer<BuildOptions.Builder>> calls =
        List.of(
            b -> b.sparseIndex(8192),
            b -> b.pageAlignment(0),
            b -> b.indexParameters(new EctParameters(512, 64, 0)),
            b -> b.keyMode(KeyMode.FULL));
    for (List<Consumer<BuildOptions.Builder>> order : permutations(calls)) {
      BuildOptions options = apply(order).build();
      assertEquals(8192, options.sparseBlockBytes());
      assertEquals(0, options.pageAlignment().getAsInt());
    }
  }

  @Test
  void conflictsFailAlikeInEveryOrder() {
    List<List<Consumer<BuildOptions.Builder>>> conflicts =
        List.of(
            List.of(b -> b.sparseIndex(4096), b -> b.indexParameters(BlockedIndexParameters.DEFAULT)),
            List.of(b -> b.sparseIndex(4096), b -> b.keyMode(KeyMode.NONE)),
            List.of(b -> b.sparseIndex(4096), b -> b.keyMode(KeyMode.signature(8))),
            List.of(b -> b.sparseIndex(512), b -> b.pageAlignment(4096)));
    List<String> expectedEnds =
        List.of("(options indexParameters, sparseIndex)", "(options keyMode, sparseIndex)", "(options keyMode, sparseIndex)",
            "(options sparseIndex, pageAlignment)");
    for (int c = 0; c < conflicts.size(); c++) {
      String message = null;
      for (List<Consumer<BuildOptions.Builder>> order : permutations(conflicts.get(c))) {
        BuildOptions.Builder builder = apply(order); // the setters accept each value
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
        assertTrue(e.getMessage().endsWith(expectedEnds.get(c)), e.getMessage());
        if (message != null) {
          assertEquals(message, e.getMessage(), "the same error in every order");
        }
        message = e.getMessage();
      }
    }
  }

  @Test
  void eachInvalidValueIsNamed() {
    BuildOptions.Builder b = BuildOptions.builder();
    assertMessage(
        "memory budget must be at least 2097152 bytes (2 MiB): 2097151 (option memoryBudget)",
        () -> b.memoryBudget(BuildOptions.MIN_MEMORY_BUDGET - 1));
    assertMessage("memory budget must be at least 2097152 bytes (2 MiB): -1 (option memoryBudget)", () -> b.memoryBudget(-1));
    for (int page : new int[] {-1, 1, 256, 1000, 8192}) {
      assertMessage("page alignment must be 0 or a power of two from 512 to 4096: " + page + " (option pageAlignment)", () -> b.pageAlignment(page));
    }
    assertMessage("block size must be 0 (dense) or a power of two from 512 bytes to 1 MiB: -1 (option sparseIndex)", () -> b.sparseIndex(-1));
    // A block size is checked against the page alignment, when that is known.
    for (int block : new int[] {256, 1000, 2 << 20}) {
      BuildOptions.Builder unaligned = BuildOptions.builder().sparseIndex(block);
      BuildOptions undecided = unaligned.build();
      String notAPowerOfTwo = "block size " + block + " is not a power of two from 512 bytes to 1 MiB (option sparseIndex)";
      assertMessage(notAPowerOfTwo, () -> undecided.checkBlocksSuit(0));
      assertMessage(notAPowerOfTwo, () -> unaligned.pageAlignment(0).build());
      assertMessage(
          "block size " + block + " does not suit page alignment 4096: use the page size, or turn alignment off (0)"
              + " for any power of two from 512 bytes to 1 MiB (options sparseIndex, pageAlignment)",
          () -> unaligned.pageAlignment(4096).build());
    }
    assertEquals("temporaryDirectory", assertThrows(NullPointerException.class, () -> b.temporaryDirectory(null)).getMessage());
    assertEquals("indexParameters", assertThrows(NullPointerException.class, () -> b.indexParameters(null)).getMessage());
    assertEquals("keyMode", assertThrows(NullPointerException.class, () -> b.keyMode(null)).getMessage());
    assertEquals("dataWrites", assertThrows(NullPointerException.class, () -> b.dataWrites(null)).getMessage());
    assertEquals("listener", assertThrows(NullPointerException.class, () -> b.listener(null)).getMessage());
    assertEquals("metadata key", assertThrows(NullPointerException.class, () -> b.metadata(null, "v")).getMessage());
    assertEquals("metadata value", assertThrows(NullPointerException.class, () -> b.metadata("k", null)).getMessage());
    // Refused values changed nothing.
    assertEquals(BuildOptions.DEFAULTS.toString(), b.build().toString());
  }

  /** Builds write their data file past the page cache by default, merges through it; a setting holds for both. */
  @Test
  void dataWritesDefaultByKindOfWriteUnlessSet() {
    BuildOptions unset = BuildOptions.DEFAULTS;
    assertEquals(PageCacheWrites.UNCACHED, unset.dataWrites());
    assertEquals(PageCacheWrites.SMALL, unset.dataWrites(PageCacheWrites.SMALL));
    BuildOptions set = BuildOptions.builder().dataWrites(PageCacheWrites.HUGE_PAGES).build();
    assertEquals(PageCacheWrites.HUGE_PAGES, set.dataWrites());
    assertEquals(PageCacheWrites.HUGE_PAGES, set.dataWrites(PageCacheWrites.SMALL));
    assertEquals(PageCacheWrites.HUGE_PAGES, set.toBuilder().build().dataWrites(PageCacheWrites.SMALL), "kept by toBuilder");
  }

  private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
    assertEquals(expected, assertThrows(IllegalArgumentException.class, call).getMessage());
  }

  @Test
  void aValueIsImmutable() {
    BuildOptions.Builder builder = BuildOptions.builder().metadata("a", "1");
    BuildOptions options = builder.build();
    builder.metadata("b", "2").memoryBudget(BuildOptions.MIN_MEMORY_BUDGET);
    assertEquals(1, options.metadata().size());
    assertEquals(BuildOptions.DEFAULT_MEMORY_BUDGET, options.memoryBudget());
    assertThrows(UnsupportedOperationException.class, () -> options.metadata().put("c", "3"));
    BuildOptions changed = options.toBuilder().pageAlignment(512).build();
    assertEquals(512, changed.pageAlignment().getAsInt());
    assertFalse(options.pageAlignment().isPresent());
    assertEquals("1", changed.metadata().get("a"));
  }

  /** The builder's setters, in an order whose intermediate states the old checks refused. */
  @Test
  void theBuilderChecksWhenTheBuildStarts() throws IOException {
    try (StoreBuilder builder = StoreBuilder.create(parent.resolve("sparse")).sparseIndex(8192).pageAlignment(0)) {
      for (int i = 0; i < 2000; i++) {
        builder.put(utf8("key-" + i), utf8("value-" + i));
      }
      StoreMeta meta = builder.build().meta();
      assertTrue(meta.isSparse());
      assertEquals(0, meta.pageBytes());
    }
    StoreBuilderTest.Recorder recorder = new StoreBuilderTest.Recorder();
    try (StoreBuilder builder = StoreBuilder.create(parent.resolve("sparse4k")).sparseIndex(4096).listener(recorder)) {
      for (int i = 0; i < 2000; i++) {
        builder.put(utf8("key-" + i), utf8("value-" + i));
      }
      assertTrue(builder.build().meta().isSparse());
    }
    StoreBuilderTest.assertProgressInPhaseOrder(recorder);
    // 8 KiB blocks do not suit the default 4 KiB pages: refused at the first put, nothing started.
    try (StoreBuilder builder = StoreBuilder.create(parent.resolve("a")).sparseIndex(8192)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> builder.put(utf8("k"), utf8("v")));
      assertTrue(e.getMessage().startsWith("block size 8192 does not suit page alignment 4096"), e.getMessage());
      assertEquals(0, builder.recordsPut());
      builder.pageAlignment(0); // still configurable: the build did not start
      builder.put(utf8("k"), utf8("v"));
      assertTrue(builder.build().meta().isSparse());
    }
    // checkOptions() checks now, before any input, and leaves the builder configurable.
    try (StoreBuilder builder = StoreBuilder.create(parent.resolve("early")).sparseIndex(8192)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::checkOptions);
      assertTrue(e.getMessage().startsWith("block size 8192 does not suit page alignment 4096"), e.getMessage());
      builder.pageAlignment(0).checkOptions().put(utf8("k"), utf8("v"));
      assertTrue(builder.build().meta().isSparse());
    }
    // With nothing put, build() checks.
    try (StoreBuilder builder = StoreBuilder.create(parent.resolve("b")).keyMode(KeyMode.NONE).sparseIndex(4096)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
      assertTrue(e.getMessage().startsWith("a sparse index needs full keys: key mode none cannot be sparse"), e.getMessage());
    }
    try (StoreBuilder builder =
        StoreBuilder.create(parent.resolve("c"), BuildOptions.builder().sparseIndex(4096).build())
            .indexParameters(BlockedIndexParameters.DEFAULT)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
      assertTrue(e.getMessage().startsWith("a sparse index is an ECT index"), e.getMessage());
    }
    assertFalse(Files.exists(parent.resolve("a").resolveSibling("b")));
    assertFalse(Files.exists(parent.resolve("c")));
    StoreFiles.assertNoLeftovers(parent);
  }

  @Test
  void theMergerChecksOptionsAgainstTheOldStores() throws IOException {
    Path signatures = parent.resolve("signatures");
    try (StoreBuilder builder = StoreBuilder.create(signatures).keyMode(KeyMode.signature(16))) {
      for (int i = 0; i < 100; i++) {
        builder.put(utf8("key-" + i), utf8("v"));
      }
      builder.build();
    }
    try (StoreMerger merger = StoreMerger.create(parent.resolve("m1")).keyMode(KeyMode.FULL).base(signatures)) {
      merger.put(utf8("new"), utf8("v"));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, merger::merge);
      assertEquals("the old stores keep keys as signature:16: a merge cannot make them full (option keyMode)", e.getMessage());
      merger.keyMode(KeyMode.signature(16)); // corrected: the merge goes ahead
      assertEquals(101, merger.merge().meta().recordCount());
    }
    try (StoreMerger merger = StoreMerger.create(parent.resolve("m2"), BuildOptions.builder().sparseIndex(4096).build())) {
      merger.base(signatures);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, merger::merge);
      assertTrue(e.getMessage().startsWith("a sparse index needs full keys: key mode signature:16 cannot be sparse"), e.getMessage());
    }
    assertFalse(Files.exists(parent.resolve("m2")));
  }

  /** A merge given a sparse index publishes the merged store re-indexed, with every record. */
  @Test
  void aMergeCanBeSparse() throws IOException {
    Path old = parent.resolve("old");
    try (StoreBuilder builder = StoreBuilder.create(old)) {
      for (int i = 0; i < 3000; i++) {
        builder.put(utf8("key-" + i), utf8("value-" + i));
      }
      builder.build();
    }
    StoreBuilderTest.Recorder recorder = new StoreBuilderTest.Recorder();
    MergeSummary summary;
    try (StoreMerger merger =
        StoreMerger.create(parent.resolve("merged"), BuildOptions.builder().sparseIndex(4096).listener(recorder).build())
            .base(old)) {
      for (int i = 2000; i < 4000; i++) {
        merger.put(utf8("key-" + i), utf8("new-" + i));
      }
      summary = merger.merge();
    }
    assertTrue(summary.meta().isSparse());
    assertEquals(StoreReindexer.DEFAULT_SPARSE_INDEX, summary.meta().indexParameters());
    assertEquals(4000, summary.meta().recordCount());
    assertEquals(summary.meta(), StoreFiles.readMeta(parent.resolve("merged")));
    StoreBuilderTest.assertProgressInPhaseOrder(recorder);
    StoreFiles.assertNoLeftovers(parent);
  }

  @Test
  void theReindexerTakesTheOptions() throws IOException {
    Path dense = parent.resolve("dense");
    try (StoreBuilder builder = StoreBuilder.create(dense)) {
      for (int i = 0; i < 5000; i++) {
        builder.put(utf8("key-" + i), utf8("value-" + i));
      }
      builder.build();
    }
    StoreBuilderTest.Recorder recorder = new StoreBuilderTest.Recorder();
    StoreMeta meta =
        StoreReindexer.reindex(dense, parent.resolve("sparse"), BuildOptions.builder().sparseIndex(4096).listener(recorder).build());
    assertTrue(meta.isSparse());
    assertEquals(StoreReindexer.DEFAULT_SPARSE_INDEX, meta.indexParameters());
    assertEquals(5000, StoreFiles.readMeta(parent.resolve("sparse")).recordCount());
    assertEquals(BuildListener.Phase.INDEX.ordinal(), recorder.events.get(0)[0]);
    assertEquals(List.of(BuildListener.Phase.PUBLISH.ordinal() + 0L, 5000L, 5000L), List.of(recorder.last()[0], recorder.last()[1], recorder.last()[2]));
  }
}
