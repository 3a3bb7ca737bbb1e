package io.varve.core.store;

import io.varve.core.testing.HostileFolder;
import io.varve.core.testing.SealedFiles;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Writes the hostile meta files of {@code src/test/resources/hostile/meta} (run {@code main} with
 * that folder to regenerate them). Each is a whole meta file with a valid envelope and a footer
 * checksum that matches its bytes, so that only the payload's own checks can reject it: the
 * payload is written field by field from {@link Fields}, one field lying per variant.
 */
final class HostileMetaFiles {
  private HostileMetaFiles() {}

  public static void main(String[] args) throws IOException {
    Path folder = Path.of(args.length > 0 ? args[0] : "core/src/test/resources/hostile/meta");
    HostileFolder.write(folder, variants());
  }

  /** The fields of a meta payload (StoreMeta's grammar), valid as constructed: edit one to lie. */
  static final class Fields implements HostileFolder.Fields {
    /** The payload's layout version. */
    int version = 4;
    /** The version the header claims (-1: {@link #version}). */
    int headerVersion = -1;
    long recordCount = 1000;
    long seed = 7;
    int indexKind = 1; // blocked
    int[] knobs = {300};
    int keyMode = 0;
    int signatureBits = -1; // written only when >= 0
    int keyLength = -1;
    int valueLength = -1;
    int pageBytes = 4096;
    int recordCheck = 1;
    /** Written in version 7 and later, after recordCheck. */
    long recordCheckSalt = 0x5A17L;
    long[] hashRange = {0x1000L, 0, 0x7FFF_0000_0000_0000L, -1};
    long dataBytes = 30_000;
    long createdMillis = 1_764_000_000_000L;
    Object[][] files = {{"data", 34_104L, 11}, {"offsets", 1_600L, 12}, {"index", 900L, 13}};
    Integer fileCount; // null: files.length
    String[][] user = {{"origin", "hostile"}};
    Integer userCount; // null: user.length
    byte[] trailing = new byte[0];

    byte[] payload() throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeLong(recordCount);
      out.writeLong(seed);
      if (version >= 3) {
        out.writeByte(indexKind);
      }
      for (int knob : knobs) {
        out.writeInt(knob);
      }
      out.writeByte(keyMode);
      if (signatureBits >= 0) {
        out.writeByte(signatureBits);
      }
      out.writeInt(keyLength);
      out.writeInt(valueLength);
      out.writeInt(pageBytes);
      if (version >= 4) {
        out.writeByte(recordCheck);
        if (version >= 7) {
          out.writeLong(recordCheckSalt);
        }
        for (long word : hashRange) {
          out.writeLong(word);
        }
      }
      out.writeLong(dataBytes);
      out.writeLong(createdMillis);
      out.writeByte(fileCount != null ? fileCount : files.length);
      for (Object[] file : files) {
        writeString(out, (String) file[0]);
        out.writeLong((Long) file[1]);
        out.writeInt((Integer) file[2]);
      }
      out.writeInt(userCount != null ? userCount : user.length);
      for (String[] entry : user) {
        writeString(out, entry[0]);
        writeString(out, entry[1]);
      }
      out.write(trailing);
      out.flush();
      return bytes.toByteArray();
    }

    @Override
    public byte[] file() throws IOException {
      return envelope(headerVersion >= 0 ? headerVersion : version, payload());
    }
  }

  private static void writeString(DataOutputStream out, String value) throws IOException {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  /** The meta file around {@code payload}: header of {@code version} (unchecked here), footer matching. */
  static byte[] envelope(int version, byte[] payload) {
    return SealedFiles.file(StoreFile.META.envelope(), version, payload);
  }

  static byte[] withFooter(byte[] body) {
    return SealedFiles.sealed(StoreFile.META.envelope(), body);
  }

  /** A valid meta file (a variable-size store with a blocked index and record checksums). */
  static byte[] valid() throws IOException {
    return new Fields().file();
  }

  /** A valid meta file of a paged store. */
  static byte[] validPaged() throws IOException {
    Fields fields = new Fields();
    paged(fields);
    return fields.file();
  }

  private static void lie(Map<String, byte[]> files, String name, Consumer<Fields> edit) throws IOException {
    HostileFolder.lie(files, name, Fields::new, edit);
  }

  /** Makes {@code f} a valid paged store's meta: version 5, index kind 2 without knobs, data and pages. */
  private static void paged(Fields f) {
    f.version = 5;
    f.indexKind = 2;
    f.knobs = new int[0];
    f.files = new Object[][] {{"data", 34_104L, 11}, {"pages", 1_600L, 12}};
  }

  static Map<String, byte[]> variants() throws IOException {
    byte[] valid = valid();
    Map<String, byte[]> files = new LinkedHashMap<>();
    // The envelope.
    files.put("empty", new byte[0]);
    files.put("header-only", Arrays.copyOf(valid, StoreFile.META.headerLength()));
    files.put("truncated-payload", withFooter(Arrays.copyOf(valid, valid.length - StoreFile.FOOTER_LENGTH - 20)));
    byte[] flipped = valid.clone();
    flipped[StoreFile.META.headerLength() + 3] ^= 1;
    files.put("footer-checksum-wrong", flipped);
    files.put("other-format-name", withFooter(nameReplaced(valid, "varve-data")));
    lie(files, "version-0", f -> f.headerVersion = 0);
    lie(files, "version-8", f -> f.headerVersion = 8);
    // Version 7 salts CRC32C checks only, with a salt that is not 0.
    lie(files, "version-7-header-on-version-4-payload", f -> f.headerVersion = 7);
    lie(files, "version-7-salt-zero", f -> {
      f.version = 7;
      f.recordCheck = 2;
      f.recordCheckSalt = 0;
    });
    lie(files, "version-7-salted-xxh3", f -> {
      f.version = 7;
      f.recordCheck = 1;
    });
    lie(files, "version-7-salted-no-check", f -> {
      f.version = 7;
      f.recordCheck = 0;
    });
    // A header version other than the payload's layout.
    lie(files, "version-3-header-on-version-4-payload", f -> f.headerVersion = 3);
    lie(files, "version-1-header-on-version-3-payload", f -> {
      f.version = 3;
      f.headerVersion = 1;
    });
    lie(files, "version-4-header-on-version-3-payload", f -> {
      f.version = 3;
      f.headerVersion = 4;
    });
    // A version too old for what the payload describes.
    lie(files, "version-1-header-on-signature-keys", f -> {
      f.version = 2;
      f.headerVersion = 1;
      f.knobs = new int[] {64, 64, 3};
      f.keyMode = 1;
      f.signatureBits = 16;
      f.files = new Object[][] {{"data", 34_104L, 11}, {"offsets", 1_600L, 12}, {"hashes", 16_012L, 14}, {"index", 900L, 13}};
    });
    // Paged stores (version 5): data and pages, variable sizes, full keys, aligned to pages.
    lie(files, "version-4-header-on-paged", f -> {
      paged(f);
      f.headerVersion = 4;
    });
    lie(files, "paged-with-index", f -> {
      paged(f);
      f.files = new Object[][] {{"data", 34_104L, 11}, {"pages", 1_600L, 12}, {"index", 900L, 13}};
    });
    lie(files, "paged-with-offsets", f -> {
      paged(f);
      f.files = new Object[][] {{"data", 34_104L, 11}, {"pages", 1_600L, 12}, {"offsets", 900L, 13}};
    });
    lie(files, "paged-without-pages", f -> {
      paged(f);
      f.files = new Object[][] {{"data", 34_104L, 11}};
    });
    lie(files, "paged-fixed-sizes", f -> {
      paged(f);
      f.keyLength = 8;
      f.valueLength = 8;
      f.dataBytes = 8 * 1000 * 12 / 10;
    });
    lie(files, "paged-signature-keys", f -> {
      paged(f);
      f.keyMode = 1;
      f.signatureBits = 16;
      f.files = new Object[][] {{"data", 34_104L, 11}, {"pages", 1_600L, 12}, {"hashes", 16_012L, 14}};
    });
    lie(files, "paged-page-size-0", f -> {
      paged(f);
      f.pageBytes = 0;
    });
    lie(files, "pages-with-blocked-index", f -> f.files = new Object[][] {{"data", 34_104L, 11}, {"pages", 1_600L, 12}, {"index", 900L, 13}});
    // Counts and sizes.
    lie(files, "negative-record-count", f -> f.recordCount = -1);
    lie(files, "negative-data-bytes", f -> f.dataBytes = -5);
    lie(files, "unknown-index-kind", f -> f.indexKind = 7);
    lie(files, "keys-per-block-0", f -> f.knobs = new int[] {0});
    lie(files, "keys-per-block-huge", f -> f.knobs = new int[] {Integer.MAX_VALUE});
    lie(files, "ect-bucket-size-0", f -> {
      f.indexKind = 0;
      f.knobs = new int[] {0, 64, 3};
    });
    lie(files, "unknown-key-mode", f -> f.keyMode = 3);
    lie(files, "signature-of-0-bits", f -> {
      f.keyMode = 1;
      f.signatureBits = 0;
    });
    lie(files, "signature-of-65-bits", f -> {
      f.keyMode = 1;
      f.signatureBits = 65;
    });
    lie(files, "key-length-minus-2", f -> f.keyLength = -2);
    lie(files, "fixed-key-variable-value", f -> f.keyLength = 8);
    lie(files, "fixed-sizes-not-adding-up", f -> {
      f.keyLength = 8;
      f.valueLength = 8;
      f.files = new Object[][] {{"data", 34_104L, 11}, {"index", 900L, 13}};
    });
    lie(files, "fixed-record-over-2-gib", f -> {
      f.keyLength = Integer.MAX_VALUE - 8;
      f.valueLength = 8;
      f.recordCount = 1;
      f.files = new Object[][] {{"data", 34_104L, 11}, {"index", 900L, 13}};
    });
    lie(files, "page-size-3000", f -> f.pageBytes = 3000);
    lie(files, "page-size-8192", f -> f.pageBytes = 8192);
    lie(files, "crc32c-record-check-in-version-4", f -> f.recordCheck = 2);
    lie(files, "unknown-record-check", f -> {
      f.version = 6;
      f.recordCheck = 3;
    });
    lie(files, "hash-range-min-above-max", f -> f.hashRange = new long[] {5, 0, 4, -1});
    // The file list.
    lie(files, "no-data-entry", f -> f.files = new Object[][] {{"offsets", 1_600L, 12}, {"index", 900L, 13}});
    lie(files, "no-index-entry", f -> f.files = new Object[][] {{"data", 34_104L, 11}, {"offsets", 1_600L, 12}});
    lie(files, "unknown-file-entry", f -> f.files = new Object[][] {{"data", 34_104L, 11}, {"../etc/passwd", 1L, 1}, {"index", 900L, 13}});
    lie(files, "repeated-file-entry", f -> f.files = new Object[][] {{"data", 34_104L, 11}, {"data", 34_104L, 11}, {"offsets", 1_600L, 12}, {"index", 900L, 13}});
    lie(files, "negative-file-size", f -> f.files = new Object[][] {{"data", -1L, 11}, {"offsets", 1_600L, 12}, {"index", 900L, 13}});
    lie(files, "file-count-255", f -> f.fileCount = 255);
    lie(files, "variable-sizes-without-offsets", f -> f.files = new Object[][] {{"data", 34_104L, 11}, {"index", 900L, 13}});
    lie(files, "hashes-with-full-keys", f -> f.files = new Object[][] {{"data", 34_104L, 11}, {"offsets", 1_600L, 12}, {"hashes", 16_012L, 14}, {"index", 900L, 13}});
    lie(files, "no-hashes-without-keys", f -> f.keyMode = 2);
    lie(files, "blocks-with-blocked-index", f -> f.files = new Object[][] {{"data", 34_104L, 11}, {"blocks", 300L, 12}, {"index", 900L, 13}});
    lie(files, "blocks-and-offsets", f -> {
      f.indexKind = 0;
      f.knobs = new int[] {1024, 64, 0};
      f.files = new Object[][] {{"data", 34_104L, 11}, {"offsets", 1_600L, 12}, {"blocks", 300L, 12}, {"index", 900L, 13}};
    });
    // Strings and user metadata.
    files.put("string-length-negative", stringLengthLie(-7));
    files.put("string-length-huge", stringLengthLie(Integer.MAX_VALUE));
    lie(files, "user-count-negative", f -> f.userCount = Integer.MIN_VALUE);
    lie(files, "user-count-huge", f -> f.userCount = 1 << 30);
    lie(files, "user-key-repeated", f -> f.user = new String[][] {{"a", "1"}, {"a", "2"}});
    lie(files, "trailing-bytes", f -> f.trailing = new byte[] {1, 2, 3});
    return files;
  }

  /** A valid meta whose first file name's length field says {@code length}. */
  private static byte[] stringLengthLie(int length) throws IOException {
    Fields fields = new Fields();
    byte[] payload = fields.payload();
    // The first file entry's name length follows the fixed fields; find it by its value, 4 ("data").
    byte[] pattern = {0, 0, 0, 4, 'd', 'a', 't', 'a'};
    for (int i = 0; i + pattern.length <= payload.length; i++) {
      if (Arrays.equals(payload, i, i + pattern.length, pattern, 0, pattern.length)) {
        ByteBuffer.wrap(payload).putInt(i, length);
        return envelope(fields.version, payload);
      }
    }
    throw new AssertionError("no data entry");
  }

  private static byte[] nameReplaced(byte[] file, String formatName) {
    byte[] body = Arrays.copyOf(file, file.length - StoreFile.FOOTER_LENGTH);
    byte[] name = formatName.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(name, 0, body, 5, Math.min(name.length, StoreFile.META.formatName().length()));
    return body;
  }
}
