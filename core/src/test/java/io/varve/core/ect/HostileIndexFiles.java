package io.varve.core.ect;

import io.varve.core.testing.HostileFolder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Writes the hostile serialized indexes of {@code src/test/resources/hostile/ect} (run {@code
 * main} with that folder to regenerate them). Each is a damaged variant of one small valid index;
 * where noted, the checksum is recomputed so that the damage must be caught by structure checks.
 */
final class HostileIndexFiles {
  // Byte offsets of header fields (see EctIndex's serialized form).
  static final int VERSION = 4;
  static final int FLAGS = 8;
  static final int BUCKET_SIZE = 12;
  static final int SKIP_LEVELS = 20;
  static final int KEY_COUNT = 24;
  static final int BUCKET_COUNT = 32;
  static final int TRIE_BITS = 40;
  static final int DIRECTORY = 48;
  static final int DIRECTORY_RANK_WIDTH = DIRECTORY + 16;
  static final int DIRECTORY_WORDS = DIRECTORY + 24;

  private HostileIndexFiles() {}

  public static void main(String[] args) throws IOException {
    Path folder = Path.of(args.length > 0 ? args[0] : "core/src/test/resources/hostile/ect");
    HostileFolder.write(folder, variants());
  }

  static byte[] validIndex() throws IOException {
    SortedHashes hashes = SortedHashes.random(1000, 0xBAD);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    hashes.buildDense(new EctParameters(64, 16, 1)).writeTo(out);
    return out.toByteArray();
  }

  static Map<String, byte[]> variants() throws IOException {
    byte[] valid = validIndex();
    Map<String, byte[]> files = new LinkedHashMap<>();
    files.put("empty.bin", new byte[0]);
    files.put("magic-only.bin", Arrays.copyOf(valid, 4));
    files.put("wrong-magic.bin", withInt(valid, 0, 0x50414C44, false));
    files.put("future-version.bin", withInt(valid, VERSION, 3, true));
    files.put("version-2-without-extra-buckets.bin", withInt(valid, VERSION, 2, true));
    byte[] tooManyBuckets = withInt(valid, VERSION, 2, false);
    files.put("version-2-bucket-count-2-pow-51.bin", withLong(tooManyBuckets, BUCKET_COUNT, 1L << 51, true));
    files.put("unknown-flags.bin", withInt(valid, FLAGS, 6, true));
    files.put("sparse-flag-on-dense-index.bin", withInt(valid, FLAGS, 1, true));
    files.put("zero-bucket-size.bin", withInt(valid, BUCKET_SIZE, 0, true));
    files.put("skip-levels-99.bin", withInt(valid, SKIP_LEVELS, 99, true));
    files.put("negative-key-count.bin", withLong(valid, KEY_COUNT, -5, true));
    byte[] huge = withLong(valid, KEY_COUNT, 1L << 62, false);
    huge = withLong(huge, BUCKET_COUNT, (1L << 62) / 64, true);
    files.put("huge-key-count.bin", huge);
    files.put("bucket-count-mismatch.bin", withLong(valid, BUCKET_COUNT, 17, true));
    files.put("trie-bits-2-pow-50.bin", withLong(valid, TRIE_BITS, 1L << 50, true));
    files.put("directory-width-64.bin", withInt(valid, DIRECTORY_RANK_WIDTH, 64, true));
    files.put("directory-words-lie.bin", withLong(valid, DIRECTORY_WORDS, 1L << 40, true));
    byte[] notMonotone = valid.clone();
    notMonotone[DIRECTORY_WORDS + 8 + 7] ^= (byte) 0x80; // top bit of the first directory word
    files.put("directory-not-monotone.bin", withChecksum(notMonotone));
    byte[] flipped = valid.clone();
    flipped[valid.length / 2] ^= 0x10;
    files.put("bit-flip-bad-checksum.bin", flipped);
    files.put("truncated-footer.bin", Arrays.copyOf(valid, valid.length - 2));
    files.put("truncated-trie.bin", Arrays.copyOf(valid, valid.length - 40));
    return files;
  }

  private static byte[] withInt(byte[] bytes, int offset, int value, boolean fixChecksum) {
    byte[] copy = bytes.clone();
    ByteBuffer.wrap(copy).putInt(offset, value);
    return fixChecksum ? withChecksum(copy) : copy;
  }

  private static byte[] withLong(byte[] bytes, int offset, long value, boolean fixChecksum) {
    byte[] copy = bytes.clone();
    ByteBuffer.wrap(copy).putLong(offset, value);
    return fixChecksum ? withChecksum(copy) : copy;
  }

  /** Rewrites the last four bytes as the CRC32C of all bytes before them. */
  private static byte[] withChecksum(byte[] bytes) {
    EctIndexFormat.ENVELOPE.putFooter(bytes, 0, bytes.length - EctIndexFormat.ENVELOPE.footerLength());
    return bytes;
  }
}
