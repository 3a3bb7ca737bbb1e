package io.varve.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.varve.core.testing.HostileFolder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/** Every file in {@code hostile/pages} must be rejected by {@link PageTable#readFrom} with a {@code CorruptStoreException}. */
class HostilePagesTest {
  @TempDir Path temp;

  @TestFactory
  Stream<DynamicTest> hostileFiles() throws IOException {
    return HostileFolder.tests("/hostile/pages", HostilePagesFiles.variants(), HostilePagesFiles::read);
  }

  @Test
  void theValidOriginalReads() throws IOException {
    Path file = temp.resolve("pages");
    Files.write(file, HostilePagesFiles.valid());
    PageTable table = HostilePagesFiles.read(file);
    assertEquals(3, table.frameCount());
    assertEquals(100, table.recordCount());
    assertEquals(500, table.headerStart(1));
    assertEquals(70, table.firstRank(2));
    assertEquals(1, table.frameOf(250));
  }
}
