package io.varve.core.ect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.core.format.CorruptStoreException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every file in {@code hostile/ect} must be rejected with a {@link CorruptStoreException}. */
class HostileInputTest {

  static List<Path> hostileFiles() throws IOException, URISyntaxException {
    Path folder = Path.of(HostileInputTest.class.getResource("/hostile/ect").toURI());
    try (Stream<Path> files = Files.list(folder)) {
      return files.sorted().collect(Collectors.toList());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileFiles")
  void isRejectedAsCorrupt(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    try (InputStream in = new ByteArrayInputStream(bytes)) {
      assertThrows(CorruptStoreException.class, () -> EctIndex.readFrom(in), file.getFileName().toString());
    }
  }

  @Test
  void theFolderHoldsEveryGeneratedVariant() throws Exception {
    Map<String, byte[]> variants = HostileIndexFiles.variants();
    List<String> names = hostileFiles().stream().map(p -> p.getFileName().toString()).collect(Collectors.toList());
    assertFalse(names.isEmpty());
    assertEquals(variants.keySet().stream().sorted().collect(Collectors.toList()), names);
  }

  @Test
  void theValidOriginalReads() throws IOException {
    EctIndex index = EctIndex.readFrom(new ByteArrayInputStream(HostileIndexFiles.validIndex()));
    assertEquals(1000, index.size());
  }
}
