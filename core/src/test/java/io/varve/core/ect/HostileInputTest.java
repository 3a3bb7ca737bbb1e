package io.varve.core.ect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.HostileFolder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every file in {@code hostile/ect} must be rejected with a {@link CorruptStoreException}. */
class HostileInputTest {

  static List<Path> hostileFiles() {
    return HostileFolder.files("/hostile/ect");
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
    HostileFolder.assertHoldsExactly("/hostile/ect", HostileIndexFiles.variants());
  }

  @Test
  void theValidOriginalReads() throws IOException {
    EctIndex index = EctIndex.readFrom(new ByteArrayInputStream(HostileIndexFiles.validIndex()));
    assertEquals(1000, index.size());
  }
}
