package io.varve.core.shard;

import io.varve.core.testing.HostileFolder;
import io.varve.core.testing.SealedFiles;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Writes the damaged manifests of {@code src/test/resources/hostile/manifest} (run {@code main}
 * with that folder to regenerate them). Most are whole files with a valid envelope and a footer
 * checksum that matches their bytes, so that only the payload's own checks can reject them: the
 * payload is written field by field from {@link Fields}, one field lying per variant.
 */
final class HostileManifestFiles {
  private HostileManifestFiles() {}

  public static void main(String[] args) throws IOException {
    Path folder = Path.of(args.length > 0 ? args[0] : "core/src/test/resources/hostile/manifest");
    HostileFolder.write(folder, variants());
  }

  /** The fields of a manifest (ShardManifest's grammar), valid as constructed: edit one to lie. */
  static final class Fields implements HostileFolder.Fields {
    int headerVersion = 1;
    int routing = 1;
    long seed = 42;
    int keyMode = 0;
    int signatureBits = -1; // written only when >= 0
    long createdMillis = 1_764_000_000_000L;
    Integer shardCount; // null: names.length
    Long recordCount; // null: the sum of records
    String[] names = {"shard-00000", "shard-00001", "shard-00002"};
    Integer nameLength; // null: each name's own (applies to the first shard)
    long[] records = {10, 0, 7};
    long[] bytes = {9_000, 8_500, 8_900};
    long[] seeds = {42, 42, 43};
    int[] checksums = {0x11, 0x22, 0x33};
    byte[] trailing = new byte[0];

    byte[] payload() throws IOException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      DataOutputStream data = new DataOutputStream(out);
      data.writeByte(routing);
      data.writeLong(seed);
      data.writeByte(keyMode);
      if (signatureBits >= 0) {
        data.writeByte(signatureBits);
      }
      data.writeLong(createdMillis);
      data.writeInt(shardCount != null ? shardCount : names.length);
      data.writeLong(recordCount != null ? recordCount : Arrays.stream(records).sum());
      for (int i = 0; i < names.length; i++) {
        byte[] name = names[i].getBytes(StandardCharsets.ISO_8859_1);
        data.writeByte(i == 0 && nameLength != null ? nameLength : name.length);
        data.write(name);
        data.writeLong(records[i]);
        data.writeLong(bytes[i]);
        data.writeLong(seeds[i]);
        data.writeInt(checksums[i]);
      }
      data.write(trailing);
      data.flush();
      return out.toByteArray();
    }

    @Override
    public byte[] file() throws IOException {
      return envelope(headerVersion, payload());
    }
  }

  /** The file around {@code payload}: a header of {@code version} (unchecked here), the footer matching. */
  static byte[] envelope(int version, byte[] payload) {
    return SealedFiles.file(ShardManifest.ENVELOPE, version, payload);
  }

  static byte[] withFooter(byte[] body) {
    return SealedFiles.sealed(ShardManifest.ENVELOPE, body);
  }

  /** A valid manifest of three shards. */
  static byte[] valid() throws IOException {
    return new Fields().file();
  }

  private static void lie(Map<String, byte[]> files, String name, Consumer<Fields> edit) throws IOException {
    HostileFolder.lie(files, name, Fields::new, edit);
  }

  static Map<String, byte[]> variants() throws IOException {
    byte[] valid = valid();
    int header = ShardManifest.ENVELOPE.headerLength();
    Map<String, byte[]> files = new LinkedHashMap<>();
    // The envelope.
    files.put("empty", new byte[0]);
    files.put("header-only", Arrays.copyOf(valid, header));
    files.put("cut-in-footer", Arrays.copyOf(valid, valid.length - 3));
    byte[] flipped = valid.clone();
    flipped[header + 5] ^= 0x10;
    files.put("payload-bit-flipped", flipped);
    byte[] otherName = Arrays.copyOf(valid, valid.length - ShardManifest.ENVELOPE.footerLength());
    System.arraycopy("varve-meta\0\0\0\0".getBytes(StandardCharsets.US_ASCII), 0, otherName, 5, 14);
    files.put("a-meta-file-name", withFooter(otherName));
    lie(files, "version-0", f -> f.headerVersion = 0);
    lie(files, "version-2", f -> f.headerVersion = 2);
    files.put("payload-cut-short", withFooter(Arrays.copyOf(valid, valid.length - ShardManifest.ENVELOPE.footerLength() - 11)));
    // The fields.
    lie(files, "routing-scheme-0", f -> f.routing = 0);
    lie(files, "routing-scheme-2", f -> f.routing = 2);
    lie(files, "unknown-key-mode", f -> f.keyMode = 3);
    lie(files, "signature-of-0-bits", f -> {
      f.keyMode = 1;
      f.signatureBits = 0;
    });
    lie(files, "signature-of-65-bits", f -> {
      f.keyMode = 1;
      f.signatureBits = 65;
    });
    lie(files, "shard-count-0", f -> f.shardCount = 0);
    lie(files, "shard-count-negative", f -> f.shardCount = -3);
    lie(files, "shard-count-65537", f -> f.shardCount = 65_537);
    lie(files, "shard-count-above-the-shards", f -> f.shardCount = 4);
    lie(files, "shard-count-below-the-shards", f -> f.shardCount = 2);
    lie(files, "record-count-negative", f -> f.recordCount = -1L);
    lie(files, "record-count-above-the-sum", f -> f.recordCount = 18L);
    lie(files, "record-count-below-the-sum", f -> f.recordCount = 16L);
    lie(files, "shard-records-negative", f -> f.records = new long[] {10, -1, 8});
    lie(files, "shard-records-overflow", f -> {
      f.records = new long[] {Long.MAX_VALUE, Long.MAX_VALUE, 2};
      f.recordCount = 0L;
    });
    lie(files, "shard-bytes-0", f -> f.bytes = new long[] {9_000, 0, 8_900});
    lie(files, "shard-bytes-negative", f -> f.bytes = new long[] {9_000, 8_500, -8_900});
    lie(files, "name-empty", f -> f.names = new String[] {"", "shard-00001", "shard-00002"});
    lie(files, "name-parent-directory", f -> f.names = new String[] {"..", "shard-00001", "shard-00002"});
    lie(files, "name-with-slash", f -> f.names = new String[] {"a/b", "shard-00001", "shard-00002"});
    lie(files, "name-hidden", f -> f.names = new String[] {".shard-00000.staging-1f", "shard-00001", "shard-00002"});
    lie(files, "name-the-manifest", f -> f.names = new String[] {"_MANIFEST", "shard-00001", "shard-00002"});
    lie(files, "name-not-ascii", f -> f.names = new String[] {"shard-\u00e9", "shard-00001", "shard-00002"});
    lie(files, "name-with-nul", f -> f.names = new String[] {"shard\0", "shard-00001", "shard-00002"});
    lie(files, "name-repeated", f -> f.names = new String[] {"shard-00000", "shard-00001", "shard-00000"});
    lie(files, "name-length-past-the-end", f -> f.nameLength = 255);
    lie(files, "trailing-bytes", f -> f.trailing = new byte[] {0, 0, 0, 1});
    return files;
  }
}
