package io.varve.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.HostileFolder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every file in {@code hostile/meta} must be rejected by {@link StoreMeta#read} with a {@link CorruptStoreException}. */
class HostileMetaTest {
  @TempDir Path temp;

  static List<Path> hostileFiles() {
    return HostileFolder.files("/hostile/meta");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileFiles")
  void isRejectedAsCorrupt(Path file) {
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> StoreMeta.read(file), file.getFileName().toString());
    System.out.println("HostileMetaTest " + file.getFileName() + ": " + e.getMessage());
  }

  @Test
  void theFolderHoldsEveryGeneratedVariant() throws Exception {
    HostileFolder.assertHoldsExactly("/hostile/meta", HostileMetaFiles.variants());
  }

  @Test
  void theValidOriginalReads() throws IOException {
    Path file = temp.resolve("meta");
    Files.write(file, HostileMetaFiles.valid());
    StoreMeta meta = StoreMeta.read(file);
    assertEquals(1000, meta.recordCount());
    assertEquals(4, meta.formatVersion());
  }
}
