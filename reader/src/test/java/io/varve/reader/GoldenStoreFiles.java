package io.varve.reader;

import io.varve.builder.StoreBuilder;
import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.ect.EctParameters;
import io.varve.core.store.KeyMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Writes the golden sample stores of each released format version (run by hand when a version is
 * released; {@link GoldenStoreTest} reads the committed copies):
 *
 * <pre>
 * java -cp ... io.varve.reader.GoldenStoreFiles reader/src/test/resources/golden
 * </pre>
 */
final class GoldenStoreFiles {
  private GoldenStoreFiles() {}

  static final String VARIABLE = "store-v1-variable";
  static final String FIXED = "store-v1-fixed";
  /** Meta version 2: a sparse index over 512-byte blocks (the variable sample's records). */
  static final String SPARSE = "store-meta2-sparse";
  /** Meta version 2: 12-bit key signatures and a hashes file (the fixed sample's records). */
  static final String SIGNATURE = "store-meta2-signature";
  /** Meta version 3: a blocked index of 100 keys per block on average (the variable sample's records). */
  static final String BLOCKED = "store-meta3-blocked";
  /**
   * Meta version 4: XXH3 record checksums, variable sizes, a blocked index (the variable sample's
   * records). Written by builders before meta version 6, which {@link #writeCheckedVariable} now
   * writes: kept, no longer reproducible.
   */
  static final String XXH3_CHECKED_VARIABLE = "store-meta4-checked-variable";
  /** Meta version 4: XXH3 record checksums, fixed sizes, an ECT index (the fixed sample's records); kept. */
  static final String XXH3_CHECKED_FIXED = "store-meta4-checked-fixed";
  /** Meta version 5, data version 3: {@link #PAGED} with XXH3 checks, as builders wrote it before meta version 6; kept. */
  static final String XXH3_PAGED = "store-meta5-paged";
  /**
   * Meta version 6: CRC32C record checksums, variable sizes, a blocked index (the variable sample's
   * records). Builders write it with {@code recordCheckSalt(0)}; by default they salt (meta version 7).
   */
  static final String CHECKED_VARIABLE = "store-meta6-checked-variable";
  /** Meta version 6: CRC32C record checksums, fixed sizes, an ECT index (the fixed sample's records). */
  static final String CHECKED_FIXED = "store-meta6-checked-fixed";
  /**
   * Meta version 6, data version 3: a paged store over 512-byte pages, CRC32C record checksums; the
   * variable sample's keys, every hundredth value (from the 8th) longer than half a page, so that
   * records cross frames ({@link #pagedValue}).
   */
  static final String PAGED = "store-meta6-paged";
  /** Meta version 7: {@link #CHECKED_VARIABLE}'s store with its checks salted by {@link #SALT}. */
  static final String SALTED_VARIABLE = "store-meta7-checked-variable";
  /** Meta version 7: {@link #CHECKED_FIXED}'s store with its checks salted by {@link #SALT}. */
  static final String SALTED_FIXED = "store-meta7-checked-fixed";
  /** Meta version 7, data version 3: {@link #PAGED}'s store with its checks salted by {@link #SALT}. */
  static final String SALTED_PAGED = "store-meta7-paged";
  /** The record check salt of the version-7 samples (builders draw one at random unless set). */
  static final long SALT = 0x5A17_C0DE_F00D_0007L;
  static final int RECORDS = 500;

  /** Key {@code i} of the variable-size sample (includes an empty key and non-ASCII ones). */
  static byte[] variableKey(int i) {
    return i == 0 ? new byte[0] : ("ключ-" + i + "-キー").getBytes(StandardCharsets.UTF_8);
  }

  /** Value {@code i} of the variable-size sample: {@code i % 40} bytes, some empty. */
  static byte[] variableValue(int i) {
    byte[] value = new byte[i % 40];
    for (int j = 0; j < value.length; j++) {
      value[j] = (byte) (i * 31 + j);
    }
    return value;
  }

  /** Value {@code i} of the paged sample: {@link #variableValue}, or {@code 300 + i} bytes when {@code i % 100 == 7}. */
  static byte[] pagedValue(int i) {
    if (i % 100 != 7) {
      return variableValue(i);
    }
    byte[] value = new byte[300 + i];
    for (int j = 0; j < value.length; j++) {
      value[j] = (byte) (i + j * 7);
    }
    return value;
  }

  static byte[] fixedKey(int i) {
    byte[] key = new byte[16];
    for (int j = 0; j < 16; j++) {
      key[j] = (byte) (i >>> (j % 4 * 8) ^ j * 17);
    }
    return key;
  }

  static byte[] fixedValue(int i) {
    byte[] value = new byte[8];
    for (int j = 0; j < 8; j++) {
      value[j] = (byte) (i >>> (j * 8 % 32));
    }
    return value;
  }

  static void writeVariable(Path dir) throws IOException {
    try (StoreBuilder builder = StoreBuilder.create(dir).recordChecksums(false).indexParameters(new EctParameters(16, 64, 2)).metadata("sample", "variable")) {
      for (int i = 0; i < RECORDS; i++) {
        builder.put(variableKey(i), variableValue(i));
      }
      builder.build();
    }
  }

  static void writeFixed(Path dir) throws IOException {
    try (StoreBuilder builder = StoreBuilder.create(dir).recordChecksums(false).seed(42).indexParameters(StoreBuilder.DEFAULT_ECT_INDEX)) {
      for (int i = 0; i < RECORDS; i++) {
        builder.put(fixedKey(i), fixedValue(i));
      }
      builder.build();
    }
  }

  static void writeSparse(Path dir) throws IOException {
    try (StoreBuilder builder =
        StoreBuilder.create(dir).recordChecksums(false).pageAlignment(512).sparseIndex(512).indexParameters(new EctParameters(64, 64, 1))) {
      for (int i = 0; i < RECORDS; i++) {
        builder.put(variableKey(i), variableValue(i));
      }
      builder.build();
    }
  }

  static void writeSignature(Path dir) throws IOException {
    try (StoreBuilder builder =
        StoreBuilder.create(dir)
            .recordChecksums(false)
            .seed(7)
            .indexParameters(StoreBuilder.DEFAULT_ECT_INDEX)
            .keyMode(io.varve.core.store.KeyMode.signature(12))) {
      for (int i = 0; i < RECORDS; i++) {
        builder.put(fixedKey(i), fixedValue(i));
      }
      builder.build();
    }
  }

  static void writeBlocked(Path dir) throws IOException {
    try (StoreBuilder builder =
        StoreBuilder.create(dir).recordChecksums(false).seed(3).indexParameters(new BlockedIndexParameters(100)).metadata("sample", "blocked")) {
      for (int i = 0; i < RECORDS; i++) {
        builder.put(variableKey(i), variableValue(i));
      }
      builder.build();
    }
  }

  static void writeCheckedVariable(Path dir, long salt) throws IOException {
    try (StoreBuilder builder =
        StoreBuilder.create(dir).recordCheckSalt(salt).seed(4).indexParameters(new BlockedIndexParameters(100)).metadata("sample", "checked")) {
      for (int i = 0; i < RECORDS; i++) {
        builder.put(variableKey(i), variableValue(i));
      }
      builder.build();
    }
  }

  static void writeCheckedFixed(Path dir, long salt) throws IOException {
    try (StoreBuilder builder = StoreBuilder.create(dir).recordCheckSalt(salt).seed(43).indexParameters(StoreBuilder.DEFAULT_ECT_INDEX)) {
      for (int i = 0; i < RECORDS; i++) {
        builder.put(fixedKey(i), fixedValue(i));
      }
      builder.build();
    }
  }

  static void writePaged(Path dir, long salt) throws IOException {
    try (StoreBuilder builder =
        StoreBuilder.create(dir)
            .recordCheckSalt(salt)
            .seed(5)
            .pageAlignment(512)
            .indexParameters(io.varve.core.store.PagedParameters.INSTANCE)
            .metadata("sample", "paged")) {
      for (int i = 0; i < RECORDS; i++) {
        builder.put(variableKey(i), pagedValue(i));
      }
      builder.build();
    }
  }

  public static void main(String[] args) throws IOException {
    Path folder = Path.of(args[0]);
    if (args.length == 1 || args[1].equals(VARIABLE)) {
      writeVariable(folder.resolve(VARIABLE));
    }
    if (args.length == 1 || args[1].equals(FIXED)) {
      writeFixed(folder.resolve(FIXED));
    }
    if (args.length == 1 || args[1].equals(SPARSE)) {
      writeSparse(folder.resolve(SPARSE));
    }
    if (args.length == 1 || args[1].equals(SIGNATURE)) {
      writeSignature(folder.resolve(SIGNATURE));
    }
    if (args.length == 1 || args[1].equals(BLOCKED)) {
      writeBlocked(folder.resolve(BLOCKED));
    }
    if (args.length == 1 || args[1].equals(CHECKED_VARIABLE)) {
      writeCheckedVariable(folder.resolve(CHECKED_VARIABLE), 0);
    }
    if (args.length == 1 || args[1].equals(CHECKED_FIXED)) {
      writeCheckedFixed(folder.resolve(CHECKED_FIXED), 0);
    }
    if (args.length == 1 || args[1].equals(PAGED)) {
      writePaged(folder.resolve(PAGED), 0);
    }
    if (args.length == 1 || args[1].equals(SALTED_VARIABLE)) {
      writeCheckedVariable(folder.resolve(SALTED_VARIABLE), SALT);
    }
    if (args.length == 1 || args[1].equals(SALTED_FIXED)) {
      writeCheckedFixed(folder.resolve(SALTED_FIXED), SALT);
    }
    if (args.length == 1 || args[1].equals(SALTED_PAGED)) {
      writePaged(folder.resolve(SALTED_PAGED), SALT);
    }
  }
}
