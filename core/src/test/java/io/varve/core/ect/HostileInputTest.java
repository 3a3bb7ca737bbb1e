package io.varve.core.ect;

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

/** Every file in {@code hostile/ect} must be rejected with a {@link CorruptStoreException}. */
class HostileInputTest {

  @TestFactory
  Stream<DynamicTest> hostileFiles() throws IOException {
    return HostileFolder.tests(
        "/hostile/ect", HostileIndexFiles.variants(), file -> EctIndex.readFrom(new ByteArrayInputStream(Files.readAllBytes(file))));
  }

  @Test
  void theValidOriginalReads() throws IOException {
    EctIndex index = EctIndex.readFrom(new ByteArrayInputStream(HostileIndexFiles.validIndex()));
    assertEquals(1000, index.size());
  }
}
