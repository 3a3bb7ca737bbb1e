package io.varve.core.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.varve.core.store.KeyMode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The released manifest format must stay readable: {@code golden/manifest-v1.bin} was written by
 * format version 1 from the fields below. It must read back as them, and today's writer must still
 * produce the same bytes (a change here is a format change: bump the version, keep this file, add
 * a new one).
 */
class ShardManifestGoldenTest {
  static final String FILE = "manifest-v1.bin";

  /** Seven shards (not a power of two), 24-bit signatures, one shard rehashed, one empty. */
  static ShardManifest golden() {
    return new ShardManifest(
        0x601DL,
        KeyMode.signature(24),
        1_764_000_000_000L,
        List.of(
            new ShardManifest.Shard("shard-00000", 1_431, 58_112, 0x601DL, 0x1A2B3C4D),
            new ShardManifest.Shard("shard-00001", 1_402, 57_344, 0x601DL, 0x5E6F7081),
            new ShardManifest.Shard("shard-00002", 0, 8_402, 0x601DL, 0x92A3B4C5),
            new ShardManifest.Shard("shard-00003", 1_455, 59_200, 0x601EL, 0xD6E7F809),
            new ShardManifest.Shard("shard-00004", 1_390, 56_960, 0x601DL, 0x1B2C3D4E),
            new ShardManifest.Shard("shard-00005", 1_417, 57_728, 0x601DL, 0x5F607182),
            new ShardManifest.Shard("part.6_final", 1_444, 58_880, 0x601DL, 0x93A4B5C6)));
  }

  /** Regenerates the file (only when a new format version is introduced). */
  public static void main(String[] args) throws IOException {
    Path folder = Path.of(args.length > 0 ? args[0] : "core/src/test/resources/golden");
    Files.write(folder.resolve(FILE), golden().toBytes());
  }

  private static byte[] goldenBytes() throws IOException {
    try (InputStream in = ShardManifestGoldenTest.class.getResourceAsStream("/golden/" + FILE)) {
      return in.readAllBytes();
    }
  }

  @Test
  void theGoldenManifestReadsAsWritten() throws IOException {
    ShardManifest read = ShardManifest.parse(goldenBytes(), FILE);
    assertEquals(golden(), read);
    assertEquals(7, read.shardCount());
    assertEquals(8_539, read.recordCount());
    assertEquals(KeyMode.signature(24), read.keyMode());
    assertEquals(0x601EL, read.shards().get(3).storeSeed());
    assertEquals("part.6_final", read.shards().get(6).name());
  }

  @Test
  void todaysWriterWritesTheSameBytes() throws IOException {
    assertArrayEquals(goldenBytes(), golden().toBytes());
  }

  @Test
  void writeAndReadRoundTrip(@org.junit.jupiter.api.io.TempDir Path temp) throws IOException {
    Path file = temp.resolve(ShardManifest.FILE_NAME);
    golden().write(file);
    assertEquals(golden(), ShardManifest.read(file));
    assertArrayEquals(goldenBytes(), Files.readAllBytes(file));
  }
}
