package io.varve.core.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.HostileFolder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every file in {@code hostile/manifest} must be rejected by {@link ShardManifest#read} with a
 * {@link CorruptStoreException} that names the file; the valid original they were made from reads.
 */
class HostileManifestTest {
  @TempDir Path temp;

  static List<Path> hostileFiles() {
    return HostileFolder.files("/hostile/manifest");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileFiles")
  void isRejectedAsCorrupt(Path file) {
    CorruptStoreException e =
        assertThrows(CorruptStoreException.class, () -> ShardManifest.read(file), file.getFileName().toString());
    assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
    System.out.println("HostileManifestTest " + file.getFileName() + ": " + e.getMessage());
  }

  @Test
  void theFolderHoldsEveryGeneratedVariant() throws Exception {
    HostileFolder.assertHoldsExactly("/hostile/manifest", HostileManifestFiles.variants());
  }

  @Test
  void theValidOriginalReads() throws IOException {
    Path file = temp.resolve(ShardManifest.FILE_NAME);
    Files.write(file, HostileManifestFiles.valid());
    ShardManifest manifest = ShardManifest.read(file);
    assertEquals(3, manifest.shardCount());
    assertEquals(17, manifest.recordCount());
    assertEquals(43, manifest.shards().get(2).storeSeed());
  }

  @Test
  void aFileLongerThanAnyManifestIsRefusedUnread() throws IOException {
    Path file = temp.resolve("huge");
    try (var channel = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE)) {
      channel.write(java.nio.ByteBuffer.wrap(new byte[1]), ShardManifest.MAX_FILE_BYTES); // sparse
    }
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> ShardManifest.read(file));
    assertTrue(e.getMessage().contains("longer than any manifest"), e.getMessage());
  }
}
