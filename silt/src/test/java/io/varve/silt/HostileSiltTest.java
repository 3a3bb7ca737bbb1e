package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.core.files.FileTrees;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.HostileDirectories;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every store in {@code hostile/silt} must be refused on open with a {@link CorruptStoreException}
 * saying what its variant broke: never another exception, never an open.
 */
class HostileSiltTest {
  @TempDir Path temp;

  static Path resource(String path) throws URISyntaxException {
    return Path.of(HostileSiltTest.class.getResource("/hostile/" + path).toURI());
  }

  static List<String> variants() throws IOException, URISyntaxException {
    return HostileDirectories.names(resource("silt"));
  }

  static List<String> v2Variants() throws IOException, URISyntaxException {
    return HostileDirectories.names(resource("silt-v2"));
  }

  static List<String> v3Variants() throws IOException, URISyntaxException {
    return HostileDirectories.names(resource("silt-v3"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("variants")
  void isRefusedOnOpen(String variant) throws Exception {
    isRefusedOnOpen("silt", variant);
  }

  /** The variants of a store with an id (manifest version 2). */
  @ParameterizedTest(name = "{0}")
  @MethodSource("v2Variants")
  void isRefusedOnOpenWithAnId(String variant) throws Exception {
    isRefusedOnOpen("silt-v2", variant);
  }

  /** The variants of a store with a sync mark (manifest version 3). */
  @ParameterizedTest(name = "{0}")
  @MethodSource("v3Variants")
  void isRefusedOnOpenWithASyncMark(String variant) throws Exception {
    isRefusedOnOpen("silt-v3", variant);
  }

  private void isRefusedOnOpen(String folder, String variant) throws Exception {
    Path dir = HostileDirectories.materialize(resource(folder + "-base"), resource(folder + "/" + variant), temp.resolve(variant),
        Set.of(HostileSiltFiles.EXPECT));
    String expect = Files.readString(resource(folder + "/" + variant).resolve(HostileSiltFiles.EXPECT));
    for (SiltOptions options : new SiltOptions[] {HostileSiltFiles.OPTIONS, SiltOptions.DEFAULTS}) {
      Throwable thrown = null;
      try {
        SiltStore.open(dir, options).close();
      } catch (Exception | Error e) {
        thrown = e;
      }
      if (thrown == null) {
        fail(variant + " opened");
      }
      if (!(thrown instanceof CorruptStoreException)) {
        throw new AssertionError(variant + " failed otherwise than with a CorruptStoreException", thrown);
      }
      assertTrue(thrown.getMessage().contains(expect), variant + ": expected a message with \"" + expect + "\", got: " + thrown.getMessage());
      System.out.println("HostileSiltTest " + variant + ": " + thrown.getMessage());
    }
  }

  @Test
  void theBaseOpensAndHoldsWhatWasWritten() throws IOException, URISyntaxException {
    Path dir = temp.resolve("base");
    FileTrees.copyTree(resource("silt-base"), dir);
    Path fresh = temp.resolve("fresh");
    HostileSiltFiles.writeBase(fresh);
    try (SiltStore base = SiltStore.open(dir, HostileSiltFiles.OPTIONS);
        SiltStore expected = SiltStore.open(fresh, HostileSiltFiles.OPTIONS)) {
      assertEquals(3, base.stats().logStores());
      assertTrue(base.stats().sortedRecords() > 0);
      int present = 0;
      for (int i = 0; i < 20; i++) {
        byte[] value = expected.get(HostileSiltFiles.key(i));
        if (value == null) {
          assertNull(base.get(HostileSiltFiles.key(i)));
        } else {
          assertArrayEquals(value, base.get(HostileSiltFiles.key(i)));
          present++;
        }
      }
      assertTrue(present > 8);
    }
  }

  @Test
  void aCreationCutShortIsCompletedButAStoreThatLostItsManifestIsRefused() throws IOException {
    Path dir = temp.resolve("created");
    SiltStore.open(dir, HostileSiltFiles.OPTIONS).close();
    // As a crash before the creation's rename leaves it: an empty sorted store and log, a temporary manifest.
    Files.move(dir.resolve(SiltManifest.FILE), dir.resolve(SiltManifest.FILE + ".tmp"));
    byte[] key = HostileSiltFiles.key(1);
    try (SiltStore store = SiltStore.open(dir, HostileSiltFiles.OPTIONS)) {
      assertNull(store.get(key));
      store.put(key, key);
    }
    SiltStoreModelTest.assertOnlyNamedFiles(dir);
    Path log = dir.resolve(SiltManifest.logName(2));
    long logBytes = Files.size(log);
    assertTrue(logBytes > SiltLog.HEADER_BYTES);
    Files.delete(dir.resolve(SiltManifest.FILE));
    assertThrows(CorruptStoreException.class, () -> SiltStore.open(dir, HostileSiltFiles.OPTIONS).close(), "a log with a record and no manifest");
    assertEquals(logBytes, Files.size(log), "nothing was wiped");
  }

  @Test
  void theFolderHoldsEveryGeneratedVariant() throws Exception {
    HostileDirectories.assertHoldsExactly(resource("silt"), HostileSiltFiles.variants(resource("silt-base")));
    HostileDirectories.assertHoldsExactly(resource("silt-v2"), HostileSiltFiles.v2Variants(resource("silt-v2-base")));
    HostileDirectories.assertHoldsExactly(resource("silt-v3"), HostileSiltFiles.v3Variants(resource("silt-v3-base")));
  }

  @Test
  void theVersion2BaseOpensWithItsId() throws IOException, URISyntaxException {
    Path dir = temp.resolve("v2-base");
    FileTrees.copyTree(resource("silt-v2-base"), dir);
    try (SiltStore store = SiltStore.open(dir, HostileSiltFiles.OPTIONS)) {
      assertEquals(3, store.stats().logStores());
      assertArrayEquals(HostileSiltFiles.value(20 + 1, 0), store.get(HostileSiltFiles.key(21)));
    }
    assertEquals(HostileSiltFiles.V2_ID, SiltManifest.read(dir).storeId());
  }

  @Test
  void theVersion3BaseOpensWithItsSyncMark() throws IOException, URISyntaxException {
    Path dir = temp.resolve("v3-base");
    FileTrees.copyTree(resource("silt-v3-base"), dir);
    try (SiltStore store = SiltStore.open(dir, HostileSiltFiles.OPTIONS)) {
      assertEquals(3, store.stats().logStores());
      assertArrayEquals(HostileSiltFiles.value(20 + 1, 0), store.get(HostileSiltFiles.key(21)));
    }
    assertEquals(3, SiltManifest.read(dir).version());
    assertEquals(HostileSiltFiles.V3_ID, SiltManifest.read(dir).storeId());
  }
}
