package io.varve.core.blocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.HostileFolder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every file in {@code hostile/blocked} must be rejected by {@link BlockedIndex#readFrom} with a {@link CorruptStoreException}. */
class HostileBlockedTest {

  static List<Path> hostileFiles() {
    return HostileFolder.files("/hostile/blocked");
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
    HostileFolder.assertHoldsExactly("/hostile/blocked", HostileBlockedFiles.variants());
  }

  @Test
  void theValidOriginalReads() throws IOException {
    BlockedIndex index = BlockedIndex.readFrom(new ByteArrayInputStream(HostileBlockedFiles.validIndex()));
    assertEquals(3_500, index.size());
  }
}
