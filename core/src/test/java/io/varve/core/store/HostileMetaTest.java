package io.varve.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.HostileFolder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/** Every file in {@code hostile/meta} must be rejected by {@link StoreMeta#read} with a {@link CorruptStoreException}. */
class HostileMetaTest {
  @TempDir Path temp;

  @TestFactory
  Stream<DynamicTest> hostileFiles() throws IOException {
    return HostileFolder.tests("/hostile/meta", HostileMetaFiles.variants(), StoreMeta::read);
  }

  @Test
  void theValidOriginalReads() throws IOException {
    Path file = temp.resolve("meta");
    Files.write(file, HostileMetaFiles.valid());
    StoreMeta meta = StoreMeta.read(file);
    assertEquals(1000, meta.recordCount());
    assertEquals(4, meta.formatVersion());
  }

  /** Version 6 names CRC32C record checks; the same meta read as version 5 would check them as XXH3. */
  @Test
  void aVersion6MetaWithCrc32cChecksReads() throws IOException {
    HostileMetaFiles.Fields fields = new HostileMetaFiles.Fields();
    fields.version = 6;
    fields.recordCheck = 2;
    Path file = temp.resolve("meta");
    Files.write(file, fields.file());
    StoreMeta meta = StoreMeta.read(file);
    assertEquals(RecordChecksum.CRC32C, meta.recordChecksum());
    assertEquals(6, meta.formatVersion());
    assertEquals(2, meta.dataFormatVersion());
  }

  /** Version 7 adds the salt of the CRC32C record checks. */
  @Test
  void aVersion7MetaWithASaltReads() throws IOException {
    HostileMetaFiles.Fields fields = new HostileMetaFiles.Fields();
    fields.version = 7;
    fields.recordCheck = 2;
    fields.recordCheckSalt = -0x5A17L;
    Path file = temp.resolve("meta");
    Files.write(file, fields.file());
    StoreMeta meta = StoreMeta.read(file);
    assertEquals(RecordChecksum.CRC32C, meta.recordChecksum());
    assertEquals(-0x5A17L, meta.recordCheckSalt());
    assertEquals(7, meta.formatVersion());
    assertEquals(2, meta.dataFormatVersion());
  }

  /** The paged variants lie about one field of a valid paged meta, which reads. */
  @Test
  void theValidPagedOriginalReads() throws IOException {
    Path file = temp.resolve("meta");
    Files.write(file, HostileMetaFiles.validPaged());
    StoreMeta meta = StoreMeta.read(file);
    assertEquals(5, meta.formatVersion());
    assertEquals(3, meta.dataFormatVersion());
    assertEquals(io.varve.core.index.IndexKind.PAGED, meta.indexKind());
  }
}
