package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreArtifacts;
import io.varve.core.artifact.StoreArtifact;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.HostileFolder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The golden artifact reads, and today's packer writes it byte for byte; every file of {@code
 * hostile/artifact} is refused by opening or verifying it with a {@link CorruptStoreException} that
 * names the file, never another error (nor a crash).
 */
class HostileArtifactTest {
  private static final Path GOLDEN = HostileFolder.files("/golden").get(0).getParent();

  @TempDir Path temp;

  @TestFactory
  Stream<DynamicTest> everyHostileArtifactIsRefused() throws IOException {
    return HostileFolder.tests(
        "/hostile/artifact",
        HostileArtifactFiles.variants(Files.readAllBytes(GOLDEN.resolve(HostileArtifactFiles.GOLDEN))),
        file -> {
          try {
            try (Store store = Store.open(file)) {
              store.verify();
            }
          } catch (CorruptStoreException e) {
            assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
            throw e;
          }
        });
  }

  @Test
  void theGoldenArtifactReadsEveryKey() throws IOException {
    Path artifact = GOLDEN.resolve(HostileArtifactFiles.GOLDEN);
    for (Store store : new Store[] {Store.open(artifact), Store.load(artifact)}) {
      try (store) {
        assertEquals(GoldenStoreFiles.RECORDS, store.size());
        for (int i = 0; i < GoldenStoreFiles.RECORDS; i++) {
          assertArrayEquals(GoldenStoreFiles.variableValue(i), store.get(GoldenStoreFiles.variableKey(i)), "record " + i);
        }
        store.verify();
      }
    }
  }

  @Test
  void todaysPackerWritesTheGoldenBytes() throws IOException {
    Path packed = temp.resolve("packed.varve");
    StoreArtifacts.pack(GOLDEN.resolve(GoldenStoreFiles.XXH3_CHECKED_VARIABLE), packed);
    assertArrayEquals(Files.readAllBytes(GOLDEN.resolve(HostileArtifactFiles.GOLDEN)), Files.readAllBytes(packed));
  }

  /** The golden artifact as docs/FORMAT.md describes it, read without Varve's parser. */
  @Test
  void theGoldenArtifactFollowsTheSpec() throws IOException {
    byte[] file = Files.readAllBytes(GOLDEN.resolve(HostileArtifactFiles.GOLDEN));
    ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(0x04034b50, b.getInt(0), "a ZIP local header first");
    int nameLength = b.getShort(26);
    assertEquals(StoreArtifact.MARKER, new String(file, 30, nameLength, StandardCharsets.US_ASCII));
    int marker = 30 + nameLength + b.getShort(28);
    assertEquals(4096, marker, "the marker's data at the first 4 KiB boundary");
    ByteBuffer big = ByteBuffer.wrap(file);
    assertEquals(0x56525645, big.getInt(marker));
    assertEquals("varve-artifact", new String(file, marker + 5, 14, StandardCharsets.US_ASCII));
    assertEquals(1, big.getInt(marker + 19), "version");
    assertEquals(1, file[marker + 23], "kind: one store");
    assertEquals(0xA9ADA9BA, big.getInt(marker + 24));
    try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(GOLDEN.resolve(HostileArtifactFiles.GOLDEN).toFile())) {
      List<String> names = zip.stream().map(java.util.zip.ZipEntry::getName).toList();
      assertEquals(List.of(StoreArtifact.MARKER, "meta", "index", "offsets", "data"), names);
      for (String name : names.subList(1, names.size())) {
        assertArrayEquals(
            Files.readAllBytes(GOLDEN.resolve(GoldenStoreFiles.XXH3_CHECKED_VARIABLE).resolve(name)),
            zip.getInputStream(zip.getEntry(name)).readAllBytes(),
            name + " is the store's file");
      }
    }
  }
}
