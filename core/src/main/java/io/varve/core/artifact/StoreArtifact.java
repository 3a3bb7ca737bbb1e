package io.varve.core.artifact;

import io.varve.core.files.FileReadInterrupted;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import io.varve.core.format.EnvelopeOutput;
import io.varve.core.format.FileRegion;
import io.varve.core.store.StoreFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * A one-file store artifact ({@code .varve}), version 1: a ZIP file whose entries are a store
 * directory's files, each STORED (uncompressed) with its data aligned to {@value #ALIGNMENT} bytes,
 * so that a reader maps every file in place at its offset in the artifact, without unpacking, and
 * a store file's pages are pages of the artifact. The first entry, {@value #MARKER}, says what the
 * artifact holds, so that a reader refuses any other ZIP with a clear message.
 *
 * <pre>
 * Artifact := ZIP (see {@link ZipDirectory}) of entries, each STORED, data at a multiple of 4096:
 *             Marker  (first entry, lowest offset)
 *             a store directory's files under their names (meta, index, offsets | blocks, hashes?, data;
 *             or, paged: meta, pages, data)
 * Marker   := magic:int32 = 0x56525645 ("VRVE") nameLength:uint8 = 14 name:ASCII = "varve-artifact"
 *             version:int32 = 1
 *             kind:uint8                           (1: one store; others refused)
 *             footerMagic:int32 = 0xA9ADA9BA checksum:int32   (CRC32C of every byte before the footer)
 * </pre>
 *
 * Each entry's ZIP CRC-32 is recorded as any ZIP's is and checked by {@link #checkCrc32s()} (a
 * store's {@code verify}); the store files' own CRC32C footers hold as in a directory. Immutable;
 * thread-safe.
 */
public final class StoreArtifact {
  /** The file name suffix of an artifact. */
  public static final String SUFFIX = ".varve";
  /** Where every entry's data starts: a multiple of this, the page size of the data file. */
  public static final int ALIGNMENT = 4096;
  /** The name of the first entry, which says what the artifact holds. */
  public static final String MARKER = "_ARTIFACT";
  /** The artifact format version this code writes and reads. */
  public static final int VERSION = 1;
  /** The marker entry's envelope: the store files' magic and footer, its own name. */
  public static final Envelope ENVELOPE =
      Envelope.builder("varve-artifact").magic(StoreFile.MAGIC).named().versions(VERSION, VERSION).footerMagic().build();
  /** The marker's kind of a single store. */
  public static final int KIND_STORE = 1;
  /** Most entries a store artifact may hold: its marker and every kind of store file. */
  public static final int MAX_ENTRIES = 1 + StoreFile.values().length;
  /** The ZIP comment writers put, for people listing the file. */
  public static final String COMMENT = "Varve store artifact, version 1: STORED entries aligned to 4096 bytes, mapped in place";

  private final Path file;
  private final Map<String, ZipDirectory.Entry> entries;

  private StoreArtifact(Path file, Map<String, ZipDirectory.Entry> entries) {
    this.file = file;
    this.entries = entries;
  }

  /** The marker entry's bytes for an artifact of {@code kind}. */
  public static byte[] marker(int kind) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(32);
    try (EnvelopeOutput out = ENVELOPE.output(bytes, VERSION)) {
      out.writeByte(kind);
      out.finish();
    } catch (IOException e) {
      throw new AssertionError("never: writing to memory", e);
    }
    return bytes.toByteArray();
  }

  /** The order writers put a store's files in: small files first, the data last. */
  public static List<StoreFile> entryOrder() {
    return List.of(
        StoreFile.META, StoreFile.INDEX, StoreFile.OFFSETS, StoreFile.BLOCKS, StoreFile.PAGES, StoreFile.HASHES, StoreFile.DATA);
  }

  /** Whether {@code path} is named as an artifact is ({@value #SUFFIX}). */
  public static boolean isArtifactName(Path path) {
    Path name = path.getFileName();
    return name != null && name.toString().endsWith(SUFFIX);
  }

  /**
   * Reads and checks the artifact {@code file}: the ZIP's central directory, the marker, and that
   * every entry is a store file, STORED and aligned.
   *
   * @throws CorruptStoreException naming the file on any defect, including a ZIP that is no Varve
   *     artifact
   * @throws java.nio.file.NoSuchFileException when it does not exist
   */
  public static StoreArtifact open(Path file) throws IOException {
    return FileReadInterrupted.reading(file.toString(), () -> openUninterrupted(file));
  }

  private static StoreArtifact openUninterrupted(Path file) throws IOException {
    String source = file.toString();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      List<ZipDirectory.Entry> list = ZipDirectory.read(channel, source, MAX_ENTRIES).entries();
      CorruptStoreException.check(!list.isEmpty() && list.get(0).name().equals(MARKER),
          source + ": not a Varve artifact (a ZIP file whose first entry is not " + MARKER + ")");
      ZipDirectory.Entry marker = list.get(0);
      Map<String, ZipDirectory.Entry> entries = new LinkedHashMap<>();
      for (ZipDirectory.Entry entry : list) {
        CorruptStoreException.check(entry.dataOffset() % ALIGNMENT == 0, source + ": entry " + entry.name() + "'s data starts at "
            + entry.dataOffset() + ", not a multiple of " + ALIGNMENT + " (not written as a Varve artifact)");
        CorruptStoreException.check(entry == marker || (isStoreFile(entry.name()) && entry.dataOffset() > marker.dataOffset()),
            source + ": entry " + entry.name() + " is not a store file after the marker");
        entries.put(entry.name(), entry);
      }
      checkMarker(channel, marker, source);
      return new StoreArtifact(file, entries);
    }
  }

  private static void checkMarker(FileChannel channel, ZipDirectory.Entry marker, String source) throws IOException {
    String name = source + "!/" + MARKER;
    long expected = ENVELOPE.headerLength() + 1L + ENVELOPE.footerLength();
    CorruptStoreException.check(marker.size() == expected, name + ": " + marker.size() + " bytes, not " + expected);
    ByteBuffer bytes = ByteBuffer.allocate((int) expected);
    while (bytes.hasRemaining()) {
      CorruptStoreException.check(channel.read(bytes, marker.dataOffset() + bytes.position()) > 0, name + ": truncated");
    }
    byte[] array = bytes.array();
    ENVELOPE.checkHeader(array, name);
    int end = array.length - ENVELOPE.footerLength();
    ENVELOPE.checkFooter(array, 0, end, name);
    int kind = array[ENVELOPE.headerLength()] & 0xFF;
    CorruptStoreException.check(kind == KIND_STORE, name + ": artifact kind " + kind + " is not supported (this code reads kind "
        + KIND_STORE + ", one store)");
  }

  private static boolean isStoreFile(String name) {
    for (StoreFile kind : StoreFile.values()) {
      if (kind.fileName().equals(name)) {
        return true;
      }
    }
    return false;
  }

  /** The artifact file. */
  public Path file() {
    return file;
  }

  /** The region of the store file {@code name} in the artifact, or null when it holds none. */
  public FileRegion region(String name) {
    ZipDirectory.Entry entry = name.equals(MARKER) ? null : entries.get(name);
    return entry == null ? null : new FileRegion(file, entry.dataOffset(), entry.size(), file + "!/" + name);
  }

  /** The names of the store files the artifact holds. */
  public List<String> storeFiles() {
    return entries.keySet().stream().filter(n -> !n.equals(MARKER)).toList();
  }

  /**
   * Reads every entry once and checks its CRC-32 against the central directory's: damage the
   * store files' own checksums would also find, reported as the ZIP's (one more pass over the
   * bytes, as an unzip would do).
   *
   * @throws CorruptStoreException naming the entry whose CRC-32 differs
   */
  public void checkCrc32s() throws IOException {
    FileReadInterrupted.reading(file.toString(), () -> {
      checkCrc32sUninterrupted();
      return null;
    });
  }

  private void checkCrc32sUninterrupted() throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer buffer = ByteBuffer.allocate(1 << 20); // on the heap: a direct one is freed only by a GC
      for (ZipDirectory.Entry entry : entries.values()) {
        CRC32 crc = new CRC32();
        for (long position = 0; position < entry.size(); ) {
          buffer.clear().limit((int) Math.min(buffer.capacity(), entry.size() - position));
          int read = channel.read(buffer, entry.dataOffset() + position);
          CorruptStoreException.check(read > 0, file + "!/" + entry.name() + ": the artifact ends inside the entry (truncated)");
          position += read;
          buffer.flip();
          crc.update(buffer);
        }
        int computed = (int) crc.getValue();
        CorruptStoreException.check(computed == entry.crc32(), file + "!/" + entry.name() + ": ZIP CRC-32 mismatch: recorded 0x"
            + Integer.toHexString(entry.crc32()) + ", computed 0x" + Integer.toHexString(computed) + " (the artifact is damaged)");
      }
    }
  }
}
