package io.varve.reader;

import io.varve.builder.StoreArtifacts;
import io.varve.core.artifact.StoreArtifact;
import io.varve.core.format.Envelope;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Writes the golden artifact ({@code golden/artifact-v1-checked-variable.varve}, the golden store
 * {@code store-meta4-checked-variable} packed) and the damaged artifacts of {@code
 * hostile/artifact}, each the golden artifact with one lie (run {@code main} from the project root
 * to regenerate both):
 *
 * <pre>
 * java -cp ... io.varve.reader.HostileArtifactFiles reader/src/test/resources
 * </pre>
 *
 * The lies are edits at the offsets the ZIP layout gives (located here by their signatures, as a
 * hostile writer would), so that each reaches one check of the reader.
 */
final class HostileArtifactFiles {
  static final String GOLDEN = "artifact-v1-checked-variable.varve";

  private HostileArtifactFiles() {}

  public static void main(String[] args) throws IOException {
    Path resources = Path.of(args.length > 0 ? args[0] : "reader/src/test/resources");
    Path golden = resources.resolve("golden").resolve(GOLDEN);
    Files.deleteIfExists(golden);
    StoreArtifacts.pack(resources.resolve("golden").resolve(GoldenStoreFiles.XXH3_CHECKED_VARIABLE), golden);
    Path folder = resources.resolve("hostile").resolve("artifact");
    Files.createDirectories(folder);
    for (Map.Entry<String, byte[]> file : variants(Files.readAllBytes(golden)).entrySet()) {
      Files.write(folder.resolve(file.getKey()), file.getValue());
    }
  }

  /** The damaged variants of the artifact {@code base}, by file name. */
  static Map<String, byte[]> variants(byte[] base) throws IOException {
    Layout layout = new Layout(base);
    Map<String, byte[]> variants = new LinkedHashMap<>();
    variants.put("empty.varve", new byte[0]);
    byte[] noise = new byte[5000];
    for (int i = 0; i < noise.length; i++) {
      noise[i] = (byte) (i * 131 + 7);
    }
    variants.put("not-a-zip.varve", noise);
    variants.put("cut-in-the-data.varve", Arrays.copyOf(base, base.length / 2));
    variants.put("cut-in-the-end-record.varve", Arrays.copyOf(base, base.length - 10));
    variants.put("foreign-zip.varve", foreignZip());
    variants.put("unaligned.varve", unaligned(layout));
    variants.put("data-deflated.varve", edit(base, b -> b.putShort(layout.central("data") + 10, (short) 8)));
    variants.put("data-deflated-in-local-header.varve", edit(base, b -> b.putShort(layout.local("data") + 8, (short) 8)));
    variants.put("data-encrypted.varve", edit(base, b -> b.putShort(layout.central("data") + 8, (short) 1)));
    variants.put("index-crc-wrong.varve", edit(base, b -> b.putInt(layout.central("index") + 16, b.getInt(layout.central("index") + 16) ^ 1)));
    variants.put("data-byte-flipped.varve", edit(base, b -> b.put(layout.dataOf("data") + 4096 + 3, (byte) (b.get(layout.dataOf("data") + 4096 + 3) ^ 0x10))));
    variants.put("data-offset-lies.varve", edit(base, b -> b.putLong(layout.zip64Field("data", 2), layout.local(StoreArtifact.MARKER))));
    variants.put("data-offset-past-the-entries.varve", edit(base, b -> b.putLong(layout.zip64Field("data", 2), layout.cdOffset + 4096)));
    variants.put("data-size-2-pow-40.varve", edit(base, b -> {
      b.putLong(layout.zip64Field("data", 0), 1L << 40);
      b.putLong(layout.zip64Field("data", 1), 1L << 40);
    }));
    variants.put("data-size-short.varve", edit(base, b -> {
      long size = b.getLong(layout.zip64Field("data", 0));
      b.putLong(layout.zip64Field("data", 0), size - 4096);
      b.putLong(layout.zip64Field("data", 1), size - 4096);
    }));
    variants.put("data-sizes-differ.varve", edit(base, b -> b.putLong(layout.zip64Field("data", 1), b.getLong(layout.zip64Field("data", 1)) - 1)));
    variants.put("entry-count-65535.varve", edit(base, b -> {
      b.putLong(layout.zip64End + 24, 65535);
      b.putLong(layout.zip64End + 32, 65535);
    }));
    variants.put("entry-count-2-pow-40.varve", edit(base, b -> {
      b.putLong(layout.zip64End + 24, 1L << 40);
      b.putLong(layout.zip64End + 32, 1L << 40);
    }));
    variants.put("entry-count-negative.varve", edit(base, b -> {
      b.putLong(layout.zip64End + 24, -1);
      b.putLong(layout.zip64End + 32, -1);
    }));
    variants.put("central-directory-past-the-end.varve", edit(base, b -> b.putLong(layout.zip64End + 48, base.length + 100L)));
    variants.put("central-directory-size-huge.varve", edit(base, b -> b.putLong(layout.zip64End + 40, 1L << 31)));
    variants.put("zip64-end-past-the-end.varve", edit(base, b -> b.putLong(layout.end - 20 + 8, base.length + 1000L)));
    variants.put("split-over-disks.varve", edit(base, b -> b.putShort(layout.end + 4, (short) 1)));
    variants.put("name-traversal.varve", rename(base, layout, "index", "../ix"));
    variants.put("two-metas.varve", rename(base, layout, "data", "meta"));
    variants.put("unknown-entry.varve", rename(base, layout, "meta", "mexa"));
    variants.put("marker-kind-2.varve", edit(base, b -> {
      int marker = layout.dataOf(StoreArtifact.MARKER);
      int payload = StoreArtifact.ENVELOPE.headerLength();
      b.put(marker + payload, (byte) 2);
      byte[] bytes = new byte[payload + 1];
      b.get(marker, bytes);
      b.putInt(marker + payload + 1 + 4, flipToBigEndian(Envelope.crc32c(bytes, 0, bytes.length)));
    }));
    variants.put("marker-damaged.varve", edit(base, b -> b.put(layout.dataOf(StoreArtifact.MARKER) + 6, (byte) 'X')));
    variants.put("meta-byte-flipped.varve", edit(base, b -> b.put(layout.dataOf("meta") + 30, (byte) (b.get(layout.dataOf("meta") + 30) ^ 1))));
    return variants;
  }

  /** The marker's footer is big-endian, written here into a little-endian view. */
  private static int flipToBigEndian(int value) {
    return Integer.reverseBytes(value);
  }

  private static byte[] edit(byte[] base, Consumer<ByteBuffer> lie) {
    byte[] copy = base.clone();
    lie.accept(ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN));
    return copy;
  }

  /** Renames an entry in its central and local headers (same length). */
  private static byte[] rename(byte[] base, Layout layout, String from, String to) {
    return edit(base, b -> {
      byte[] name = to.getBytes(StandardCharsets.US_ASCII);
      b.put(layout.central(from) + 46, name);
      b.put(layout.local(from) + 30, name);
    });
  }

  /** A valid ZIP of one STORED text file: no Varve artifact. */
  private static byte[] foreignZip() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
      stored(zip, "hello.txt", "hello, world\n".getBytes(StandardCharsets.US_ASCII));
    }
    return bytes.toByteArray();
  }

  /** The artifact's entries rewritten by the JDK's ZIP writer: STORED, but not aligned. */
  private static byte[] unaligned(Layout layout) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
      for (String name : layout.names) {
        stored(zip, name, layout.bytesOf(name));
      }
    }
    return bytes.toByteArray();
  }

  private static void stored(ZipOutputStream zip, String name, byte[] data) throws IOException {
    ZipEntry entry = new ZipEntry(name);
    entry.setMethod(ZipEntry.STORED);
    entry.setSize(data.length);
    entry.setCompressedSize(data.length);
    CRC32 crc = new CRC32();
    crc.update(data);
    entry.setCrc(crc.getValue());
    entry.setTime(0);
    zip.putNextEntry(entry);
    zip.write(data);
    zip.closeEntry();
  }

  /** Where the structures of a valid artifact lie, found by their signatures. */
  private static final class Layout {
    final byte[] base;
    final ByteBuffer b;
    final int end;
    final int zip64End;
    final int cdOffset;
    final Map<String, Integer> centrals = new LinkedHashMap<>();
    final java.util.List<String> names = new java.util.ArrayList<>();

    Layout(byte[] base) {
      this.base = base;
      this.b = ByteBuffer.wrap(base).order(ByteOrder.LITTLE_ENDIAN);
      int at = base.length - 22;
      while (b.getInt(at) != 0x06054b50) {
        at--;
      }
      end = at;
      zip64End = (int) b.getLong(end - 20 + 8);
      cdOffset = (int) b.getLong(zip64End + 48);
      int entries = (int) b.getLong(zip64End + 32);
      int c = cdOffset;
      for (int i = 0; i < entries; i++) {
        int nameLength = b.getShort(c + 28) & 0xFFFF;
        String name = new String(base, c + 46, nameLength, StandardCharsets.US_ASCII);
        centrals.put(name, c);
        names.add(name);
        c += 46 + nameLength + (b.getShort(c + 30) & 0xFFFF) + (b.getShort(c + 32) & 0xFFFF);
      }
    }

    int central(String name) {
      return centrals.get(name);
    }

    /** The position of ZIP64 field {@code index} (0 size, 1 compressed size, 2 local offset) of an entry. */
    int zip64Field(String name, int index) {
      int c = central(name);
      int extra = c + 46 + (b.getShort(c + 28) & 0xFFFF);
      int extraEnd = extra + (b.getShort(c + 30) & 0xFFFF);
      while (extra < extraEnd && (b.getShort(extra) & 0xFFFF) != 1) {
        extra += 4 + (b.getShort(extra + 2) & 0xFFFF);
      }
      if (extra >= extraEnd) {
        throw new IllegalStateException(name + " has no ZIP64 field");
      }
      return extra + 4 + 8 * index;
    }

    int local(String name) {
      int c = central(name);
      long offset = b.getInt(c + 42) & 0xFFFF_FFFFL;
      return (int) (offset == 0xFFFF_FFFFL ? b.getLong(zip64Field(name, 2)) : offset);
    }

    int dataOf(String name) {
      int local = local(name);
      return local + 30 + (b.getShort(local + 26) & 0xFFFF) + (b.getShort(local + 28) & 0xFFFF);
    }

    byte[] bytesOf(String name) {
      int c = central(name);
      long size = b.getInt(c + 24) & 0xFFFF_FFFFL;
      if (size == 0xFFFF_FFFFL) {
        size = b.getLong(zip64Field(name, 0));
      }
      return Arrays.copyOfRange(base, dataOf(name), dataOf(name) + (int) size);
    }
  }
}
