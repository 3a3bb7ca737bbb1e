package io.varve.core.blocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.core.format.CorruptStoreException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every file in {@code hostile/blocked} must be rejected by {@link BlockedIndex#readFrom} with a {@link CorruptStoreException}. */
class HostileBlockedTest {

  static List<Path> hostileFiles() throws IOException, URISyntaxException {
    Path folder = Path.of(HostileBlockedTest.class.getResource("/hostile/blocked").toURI());
    try (Stream<Path> files = Files.list(folder)) {
      return files.sorted().collect(Collectors.toList());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileFiles")
  void isRejectedAsCorrupt(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    CorruptStoreException e =
        assertThrows(
            CorruptStoreException.class, () -> BlockedIndex.readFrom(new ByteArrayInputStream(bytes)), file.getFileName().toString());
    System.out.println("HostileBlockedTest " + file.getFileName() + ": " + e.getMessage());
  }

  @Test
  void theFolderHoldsEveryGeneratedVariant() throws Exception {
    Map<String, byte[]> variants = HostileBlockedFiles.variants();
    List<String> names = hostileFiles().stream().map(p -> p.getFileName().toString()).collect(Collectors.toList());
    assertFalse(names.isEmpty());
    assertEquals(variants.keySet().stream().sorted().collect(Collectors.toList()), names);
    for (Path file : hostileFiles()) {
      assertEquals(Arrays.toString(variants.get(file.getFileName().toString())), Arrays.toString(Files.readAllBytes(file)), file.toString());
    }
  }

  @Test
  void theValidOriginalReads() throws IOException {
    BlockedIndex index = BlockedIndex.readFrom(new ByteArrayInputStream(HostileBlockedFiles.validIndex()));
    assertEquals(3_500, index.size());
  }
}
