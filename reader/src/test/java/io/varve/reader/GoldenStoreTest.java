package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads the committed golden stores of format version 1 and checks every record, and checks that
 * today's builder still writes the same data, offsets and index bytes (meta differs only in its
 * creation time).
 */
class GoldenStoreTest {
  private static final Path GOLDEN = Path.of("src/test/resources/golden");

  @TempDir Path temp;

  @Test
  void readsVariableSizeSample() throws IOException {
    check(GOLDEN.resolve(GoldenStoreFiles.VARIABLE), GoldenStoreFiles::variableKey, GoldenStoreFiles::variableValue, false);
  }

  @Test
  void readsFixedSizeSample() throws IOException {
    check(GOLDEN.resolve(GoldenStoreFiles.FIXED), GoldenStoreFiles::fixedKey, GoldenStoreFiles::fixedValue, true);
  }

  @Test
  void readsSparseSample() throws IOException {
    Path dir = GOLDEN.resolve(GoldenStoreFiles.SPARSE);
    check(dir, GoldenStoreFiles::variableKey, GoldenStoreFiles::variableValue, false);
    try (Store store = Store.open(dir)) {
      assertEquals(512, store.stats().blockBytes());
    }
  }

  @Test
  void readsSignatureSample() throws IOException {
    Path dir = GOLDEN.resolve(GoldenStoreFiles.SIGNATURE);
    try (Store store = Store.open(dir)) {
      assertEquals(io.varve.core.store.StoreMeta.KeyMode.signature(12), store.meta().keyMode());
      assertEquals(GoldenStoreFiles.RECORDS, store.size());
      for (int i = 0; i < GoldenStoreFiles.RECORDS; i++) {
        assertArrayEquals(GoldenStoreFiles.fixedValue(i), store.get(GoldenStoreFiles.fixedKey(i)), "record " + i);
      }
      store.verify();
    }
  }

  @Test
  void todaysBuilderWritesTheSameBytes() throws IOException {
    GoldenStoreFiles.writeVariable(temp.resolve("variable"));
    GoldenStoreFiles.writeFixed(temp.resolve("fixed"));
    GoldenStoreFiles.writeSparse(temp.resolve("sparse"));
    GoldenStoreFiles.writeSignature(temp.resolve("signature"));
    for (String file : new String[] {"data", "hashes", "index"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.SIGNATURE).resolve(file), temp.resolve("signature").resolve(file));
    }
    for (String file : new String[] {"data", "blocks", "index"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.SPARSE).resolve(file), temp.resolve("sparse").resolve(file));
    }
    for (String file : new String[] {"data", "offsets", "index"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.VARIABLE).resolve(file), temp.resolve("variable").resolve(file));
    }
    for (String file : new String[] {"data", "index"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.FIXED).resolve(file), temp.resolve("fixed").resolve(file));
    }
  }

  private static void assertSameBytes(Path expected, Path actual) throws IOException {
    assertArrayEquals(Files.readAllBytes(expected), Files.readAllBytes(actual), "bytes of " + actual.getFileName() + " changed: the format changed without a version bump?");
  }

  private static void check(Path dir, IntFunction<byte[]> keys, IntFunction<byte[]> values, boolean fixed) throws IOException {
    try (Store store = Store.open(dir)) {
      assertEquals(GoldenStoreFiles.RECORDS, store.size());
      assertEquals(fixed, store.meta().isFixedSize());
      for (int i = 0; i < GoldenStoreFiles.RECORDS; i++) {
        assertArrayEquals(values.apply(i), store.get(keys.apply(i)), "record " + i);
      }
      assertEquals(null, store.get("not there".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
      store.verify();
      assertTrue(store.meta().createdMillis() > 0);
    }
  }
}
