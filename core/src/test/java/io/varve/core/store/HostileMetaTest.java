package io.varve.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every file in {@code hostile/meta} must be rejected by {@link StoreMeta#read} with a {@link CorruptStoreException}. */
class HostileMetaTest {
  @TempDir Path temp;

  static List<Path> hostileFiles() throws IOException, URISyntaxException {
    Path folder = Path.of(HostileMetaTest.class.getResource("/hostile/meta").toURI());
    try (Stream<Path> files = Files.list(folder)) {
      return files.sorted().collect(Collectors.toList());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileFiles")
  void isRejectedAsCorrupt(Path file) {
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> StoreMeta.read(file), file.getFileName().toString());
    System.out.println("HostileMetaTest " + file.getFileName() + ": " + e.getMessage());
  }

  @Test
  void theFolderHoldsEveryGeneratedVariant() throws Exception {
    Map<String, byte[]> variants = HostileMetaFiles.variants();
    List<String> names = hostileFiles().stream().map(p -> p.getFileName().toString()).collect(Collectors.toList());
    assertFalse(names.isEmpty());
    assertEquals(variants.keySet().stream().sorted().collect(Collectors.toList()), names);
    for (Path file : hostileFiles()) {
      assertEquals(
          java.util.Arrays.toString(variants.get(file.getFileName().toString())),
          java.util.Arrays.toString(Files.readAllBytes(file)),
          file.getFileName() + " is what the generator writes");
    }
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
