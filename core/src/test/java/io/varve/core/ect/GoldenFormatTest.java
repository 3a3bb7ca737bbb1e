package io.varve.core.ect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Released format versions must stay readable: {@code golden/ect-v1-*.bin} were written by format
 * version 1 from fixed seeds, {@code golden/ect-v2-*.bin} by version 2 (more buckets than keys). Each must read and rank its keys exactly, and today's writer must
 * still produce the same bytes (a change here is a format change: bump the version, keep these
 * files, add new ones).
 */
class GoldenFormatTest {
  static final long SEED = 0x601DL;

  /** The golden files and the index each holds. */
  enum Golden {
    DENSE_PLAIN("ect-v1-dense.bin", 5000, new EctParameters(256, 64, 0), null),
    DENSE_SKIP("ect-v1-dense-skip.bin", 5000, new EctParameters(64, 16, 3), null),
    SPARSE("ect-v1-sparse.bin", 5000, new EctParameters(128, 64, 1), BlockBoundaries.fixedSize(8)),
    /** Version 2: buckets sized for 7000 keys, 5000 given (as a merge that drops keys writes). */
    DENSE_FREE_BUCKETS("ect-v2-dense-free-buckets.bin", 5000, 7000, new EctParameters(64, 16, 3));

    final String file;
    final int keys;
    final long declaredKeys;
    final EctParameters parameters;
    final BlockBoundaries blocks;

    Golden(String file, int keys, EctParameters parameters, BlockBoundaries blocks) {
      this(file, keys, keys, parameters, blocks);
    }

    Golden(String file, int keys, long declaredKeys, EctParameters parameters) {
      this(file, keys, declaredKeys, parameters, null);
    }

    Golden(String file, int keys, long declaredKeys, EctParameters parameters, BlockBoundaries blocks) {
      this.file = file;
      this.keys = keys;
      this.declaredKeys = declaredKeys;
      this.parameters = parameters;
      this.blocks = blocks;
    }

    SortedHashes hashes() {
      return SortedHashes.random(keys, SEED + ordinal());
    }

    byte[] writeToday() throws IOException {
      SortedHashes hashes = hashes();
      EctIndex index =
          blocks != null
              ? hashes.buildSparse(parameters, blocks)
              : declaredKeys > keys ? hashes.buildDenseUpTo(declaredKeys, parameters) : hashes.buildDense(parameters);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      index.writeTo(out);
      return out.toByteArray();
    }
  }

  /** Regenerates the files (only when a new format version is introduced). */
  public static void main(String[] args) throws IOException {
    Path folder = Path.of(args.length > 0 ? args[0] : "core/src/test/resources/golden");
    Files.createDirectories(folder);
    for (Golden golden : Golden.values()) {
      Files.write(folder.resolve(golden.file), golden.writeToday());
    }
  }

  @Test
  void goldenFilesOfEveryVersionReadAndRankExactly() throws IOException {
    for (Golden golden : Golden.values()) {
      byte[] bytes;
      try (InputStream in = GoldenFormatTest.class.getResourceAsStream("/golden/" + golden.file)) {
        bytes = in.readAllBytes();
      }
      EctIndex index = EctIndex.readFrom(new ByteArrayInputStream(bytes), golden.blocks);
      assertEquals(golden.keys, index.size(), golden.file);
      assertEquals(golden.parameters, index.parameters(), golden.file);
      SortedHashes hashes = golden.hashes();
      for (int i = 0; i < hashes.size(); i++) {
        long found = golden.blocks == null ? index.rank(hashes.hi[i], hashes.lo[i]) : index.block(hashes.hi[i], hashes.lo[i]);
        long expected = golden.blocks == null ? i : golden.blocks.blockOf(i);
        assertEquals(expected, found, golden.file + " key " + i);
      }
      assertArrayEquals(bytes, golden.writeToday(), golden.file + ": the writer no longer writes this format version");
    }
  }
}
