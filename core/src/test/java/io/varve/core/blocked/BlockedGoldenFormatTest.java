package io.varve.core.blocked;

import io.varve.core.ect.SortedHashes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code golden/blocked-v2.bin} was written by blocked-index format version 2 from a fixed seed
 * (clustered hashes, so that it holds spilled blocks too). It must read and rank its keys exactly,
 * and today's writer must still produce the same bytes: a change here is a format change (bump the
 * version, keep this file, add a new one).
 *
 * <p>{@code golden/blocked-v1.bin} is the same keys in version 1, the layout this index had before
 * any store used it or any release held it. Version 1 is not read any more; the test pins that it
 * is refused with a message that names the version rather than misread.
 */
class BlockedGoldenFormatTest {
  static final long SEED = 0x601DB10CL;
  static final String FILE = "blocked-v2.bin";
  static final String RETIRED_FILE = "blocked-v1.bin";

  static SortedHashes hashes() {
    return SortedHashes.clustered(4_000, 40, SEED);
  }

  static byte[] writeToday() throws IOException {
    return BlockedIndexTest.serialize(BlockedIndexTest.build(hashes(), new BlockedIndexParameters(200)));
  }

  /** Regenerates the file (only when a new format version is introduced). */
  public static void main(String[] args) throws IOException {
    Path folder = Path.of(args.length > 0 ? args[0] : "core/src/test/resources/golden");
    Files.createDirectories(folder);
    Files.write(folder.resolve(FILE), writeToday());
  }

  private byte[] golden(String file) throws IOException {
    try (InputStream in = getClass().getResourceAsStream("/golden/" + file)) {
      return in.readAllBytes();
    }
  }

  @Test
  void versionTwoReadsRanksExactlyAndIsStillWrittenTheSame() throws IOException {
    byte[] golden = golden(FILE);
    BlockedIndex index = BlockedIndex.readFrom(new ByteArrayInputStream(golden));
    SortedHashes hashes = hashes();
    assertEquals(hashes.size(), index.size());
    assertTrue(index.spilledBlocks() > 0, "the golden file holds spilled blocks");
    BlockedIndexTest.assertRanksExact(hashes, index);
    assertArrayEquals(golden, writeToday());
  }

  @Test
  void retiredVersionOneIsRefusedByName() throws IOException {
    byte[] retired = golden(RETIRED_FILE);
    CorruptStoreException e =
        assertThrows(CorruptStoreException.class, () -> BlockedIndex.readFrom(new ByteArrayInputStream(retired)));
    assertTrue(e.getMessage().contains("version 1"), e.getMessage());
  }
}
