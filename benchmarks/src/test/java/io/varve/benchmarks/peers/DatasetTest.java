package io.varve.benchmarks.peers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DatasetTest {
  @Test
  void mixIsABijectionWithItsInverse() {
    long seed = 42;
    System.out.println("seed " + seed);
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < 100_000; i++) {
      long x = random.nextLong();
      assertEquals(x, SyntheticRecords.unmix(SyntheticRecords.mix(x)));
    }
    assertEquals(0, SyntheticRecords.unmix(SyntheticRecords.mix(0)));
  }

  @Test
  void sortedOrderIsTheUnsignedKeyOrderOfTheSameRecords() throws Exception {
    RecordSet records = Dataset.parse("synthetic:20:3:5000").merged();
    List<String> inOrder = new ArrayList<>();
    records.forEach((k, v) -> inOrder.add(hex(k) + "=" + hex(v)));
    List<byte[]> sortedKeys = new ArrayList<>();
    List<String> sorted = new ArrayList<>();
    records.forEachSorted((k, v) -> {
      sortedKeys.add(k);
      sorted.add(hex(k) + "=" + hex(v));
    });
    for (int i = 1; i < sortedKeys.size(); i++) {
      assertTrue(Arrays.compareUnsigned(sortedKeys.get(i - 1), sortedKeys.get(i)) < 0, "order at " + i);
    }
    assertEquals(new HashSet<>(inOrder), new HashSet<>(sorted));
    assertEquals(records.size(), sorted.size());
    for (int j = 0; j < records.size(); j += 97) {
      assertEquals(hex(records.key(j)) + "=" + hex(records.value(j)), inOrder.get(j), "member " + j);
    }
  }

  @Test
  void theBatchIsTenPercentHalfReplacementsHalfNewKeys() throws Exception {
    Dataset dataset = Dataset.parse("synthetic:8:8:10000");
    Set<String> base = keys(dataset.base());
    Set<String> batch = keys(dataset.batch());
    assertEquals(1000, batch.size());
    assertEquals(500, batch.stream().filter(base::contains).count());
    Set<String> merged = keys(dataset.merged());
    Set<String> union = new HashSet<>(base);
    union.addAll(batch);
    assertEquals(union, merged);
    for (int j = 0; j < dataset.batch().size(); j++) {
      byte[] key = dataset.batch().key(j);
      long member = dataset.merged().size() - dataset.batch().size() + j;
      assertArrayEquals(key, dataset.merged().key(member));
      assertArrayEquals(dataset.batch().value(j), dataset.merged().value(member), "the batch's value wins");
    }
  }

  @Test
  void badSpecsAreRefusedWithTheGrammar() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Dataset.parse("synthetic:8:8"));
    assertTrue(e.getMessage().contains("synthetic:KEY_BYTES:VALUE_BYTES:RECORDS"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new SyntheticRecords(4, 8, 0, 10, 10));
  }

  /** npm's listing names its column {@code summary (words in [tested here: ...] ...)}: a note after the name. */
  @Test
  void theSummaryColumnMayCarryANoteAndIsFoundByName(@org.junit.jupiter.api.io.TempDir java.nio.file.Path temp) throws Exception {
    java.nio.file.Path file = temp.resolve("npm.tsv");
    java.nio.file.Files.writeString(file, "name\tversion\tdownloads_a_month\tsummary (words in [tested here: ...] are notes)\n"
        + "left-pad\t1.3.0\t9\tpads strings ✓\nempty\t1\t0\t\nshort\t1\t0\n", StandardCharsets.UTF_8);
    RecordSet records = Dataset.parse("tsv:npm:" + file).base();
    assertEquals(3, records.size());
    assertEquals("pads strings ✓", new String(records.value(0), StandardCharsets.UTF_8));
    assertEquals("", new String(records.value(1), StandardCharsets.UTF_8));
    assertEquals("", new String(records.value(2), StandardCharsets.UTF_8));
    java.nio.file.Path none = temp.resolve("none.tsv");
    java.nio.file.Files.writeString(none, "name\tsummaries\tsummary_of\nx\ty\tz\n", StandardCharsets.UTF_8);
    java.io.IOException e = assertThrows(java.io.IOException.class, () -> Dataset.parse("tsv:none:" + none));
    assertTrue(e.getMessage().contains("summary"), e.getMessage());
  }

  private static Set<String> keys(RecordSet records) throws Exception {
    Set<String> keys = new HashSet<>();
    records.forEach((k, v) -> keys.add(new String(k, StandardCharsets.ISO_8859_1)));
    return keys;
  }

  private static String hex(byte[] bytes) {
    StringBuilder s = new StringBuilder();
    for (byte b : bytes) {
      s.append(String.format("%02x", b));
    }
    return s.toString();
  }
}
