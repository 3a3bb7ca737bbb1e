package io.varve.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link HashesWriter} and {@link HashesReader} agree on {@link HashesFile}'s layout. */
class HashesFileTest {
  @TempDir Path dir;

  @Test
  void hashesReadBackInOrderAndTheFileHasItsSize() throws IOException {
    long seed = 0x4A5E5L;
    SplittableRandom random = TestRecords.seeded("HashesFileTest", seed);
    long[][] expected = new long[1000][];
    Path path = dir.resolve("hashes");
    StoreFileWriter.FileSummary summary;
    try (HashesWriter writer = HashesWriter.create(path)) {
      for (int i = 0; i < expected.length; i++) {
        expected[i] = new long[] {random.nextLong(), random.nextLong()};
        writer.add(expected[i][0], expected[i][1]);
      }
      summary = writer.finish();
    }
    assertEquals(HashesFile.fileSize(expected.length), summary.size());
    assertEquals(summary.size(), Files.size(path));
    assertEquals(summary.checksum(), StoreFileReader.verify(path, StoreFile.HASHES));
    try (HashesReader reader = HashesReader.openUnfinished(path, expected.length)) {
      long[] hash = new long[2];
      for (long[] want : expected) {
        reader.next(hash);
        assertArrayEquals(want, hash);
      }
      assertThrows(IllegalStateException.class, () -> reader.next(hash));
    }
  }

  @Test
  void aShortFileAndAFileOfAnotherKindAreRefused() throws IOException {
    Path path = dir.resolve("hashes");
    try (HashesWriter writer = HashesWriter.create(path)) {
      writer.add(1, 2);
      writer.finish();
    }
    byte[] bytes = Files.readAllBytes(path);
    Path cut = dir.resolve("cut");
    Files.write(cut, Arrays.copyOf(bytes, StoreFile.HASHES.headerLength() + 8));
    try (HashesReader reader = HashesReader.openUnfinished(cut, 2)) {
      CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> reader.next(new long[2]));
      assertEquals(cut + ": ends after 0 of 2 hashes", e.getMessage());
    }
    Path meta = dir.resolve("meta");
    try (StoreFileWriter out = StoreFileWriter.create(meta, StoreFile.META)) {
      out.finish();
    }
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> HashesReader.openUnfinished(meta, 0).close());
    assertEquals(meta + ": expected a varve-hashes file, found varve-meta", e.getMessage());
  }
}
