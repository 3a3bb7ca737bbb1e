package io.varve.core.blocked;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.HostileFolder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Every file in {@code hostile/blocked} must be rejected by {@link BlockedIndex#readFrom} with a {@link CorruptStoreException}. */
class HostileBlockedTest {

  @TestFactory
  Stream<DynamicTest> hostileFiles() throws IOException {
    return HostileFolder.tests(
        "/hostile/blocked",
        HostileBlockedFiles.variants(),
        file -> BlockedIndex.readFrom(new ByteArrayInputStream(Files.readAllBytes(file))));
  }

  @Test
  void theValidOriginalReads() throws IOException {
    BlockedIndex index = BlockedIndex.readFrom(new ByteArrayInputStream(HostileBlockedFiles.validIndex()));
    assertEquals(3_500, index.size());
  }
}
