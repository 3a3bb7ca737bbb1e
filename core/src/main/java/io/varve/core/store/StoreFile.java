package io.varve.core.store;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The files of a store directory and the envelope every one of them shares: an {@link Envelope}
 * with the store magic, the file's format name in the header and a footer magic, one per kind
 * ({@link #envelope()}). Writers ({@link StoreFileWriter}) and readers ({@link StoreFileReader},
 * the memory-mapped reader of {@link #DATA}) use its constants.
 *
 * <pre>
 * File    := Header Padding Payload Footer              (all integers big-endian)
 * Header  := magic:int32 = 0x56525645 ("VRVE")
 *            nameLength:uint8 name:ASCII[nameLength]     (the file's format name, e.g. "varve-data")
 *            version:int32
 * Padding := zero bytes up to the payload offset: 4096 for data (pages of the file and of the
 *            payload then coincide), none for the other files
 * Footer  := footerMagic:int32 = ~magic
 *            checksum:int32                               (CRC32C of everything before the footer)
 * </pre>
 *
 * The payloads are described by the classes that own them: {@link StoreMeta} ({@code meta}),
 * {@link RecordFormat} ({@code data}), {@code EliasFano} ({@code offsets}), {@code EctIndex} or
 * {@code BlockedIndex} ({@code index}). Immutable and thread-safe.
 */
public enum StoreFile {
  /**
   * The records in hash order ({@link RecordFormat}). Version 2: each record ends with a {@link
   * RecordChecksum} (the meta names its function); written only then. Version 3: the records are packed into frames ({@link
   * PagedLayout}), in a store whose index kind is paged; written only then.
   */
  DATA("data", "varve-data", 1, 3, 4096),
  /**
   * The Elias-Fano sequence of record start offsets; absent when all records have one size, and in
   * a store with a sparse index.
   */
  OFFSETS("offsets", "varve-offsets", 1, 1, 0),
  /**
   * The index: rank of each key in hash order (dense), or its block (sparse). The payload is the
   * serialized index of the kind the meta file names: {@code EctIndex} or {@code BlockedIndex}, each
   * with its own magic, version and checksum.
   */
  INDEX("index", "varve-index", 1, 1, 0),
  /** The blocks of a sparse index: first rank and first record start of each ({@link RecordBlocks}). */
  BLOCKS("blocks", "varve-blocks", 1, 1, 0),
  /** The frames of a paged store: first hash, record count and head of each ({@link PageTable}). */
  PAGES("pages", "varve-pages", 1, 1, 0),
  /**
   * The 128-bit hash of every record's key, in record order ({@code hi:int64 lo:int64} each), in a
   * store that does not keep full keys: read by merges and re-indexing, never by lookups.
   */
  HASHES("hashes", "varve-hashes", 1, 1, 0),
  /**
   * Counts, parameters, sizes and checksums of the other files, user metadata. Version 2: the store
   * may have a sparse index (a {@code blocks} file instead of {@code offsets}) or keep no full keys;
   * version 3: the meta names the index kind (ECT or blocked); version 4: records may end with a
   * checksum, and the keys' hashes may lie in a range narrower than the full one; version 5: the
   * index kind may be paged (a {@code pages} file, no {@code index}); version 6: the records'
   * checksum may be CRC32C. Each is written only when needed.
   */
  META("meta", "varve-meta", 1, 7, 0);

  /** The first four bytes of every store file. */
  public static final int MAGIC = 0x56525645;

  /** The first four bytes of every footer. */
  public static final int FOOTER_MAGIC = ~MAGIC;

  /** Bytes of the footer. */
  public static final int FOOTER_LENGTH = 8;

  /** The data payload's offset in its file: a page boundary, for any page size up to it. */
  public static final int DATA_PAYLOAD_OFFSET = 4096;

  private final String fileName;
  private final Envelope envelope;
  private final int payloadOffset;

  StoreFile(String fileName, String formatName, int minimumVersion, int version, int payloadAlignment) {
    this.fileName = fileName;
    this.envelope =
        Envelope.builder(formatName).magic(MAGIC).named().versions(minimumVersion, version).footerMagic().build();
    this.payloadOffset = Math.max(envelope.headerLength(), payloadAlignment);
  }

  /** The header and footer of this kind of file. */
  public Envelope envelope() {
    return envelope;
  }

  /** The name of the file in the store directory. */
  public String fileName() {
    return fileName;
  }

  /** The format name in the header. */
  public String formatName() {
    return envelope.formatName();
  }

  /** The newest format version this code writes and reads. */
  public int version() {
    return envelope.maxVersion();
  }

  /** The oldest format version this code reads (and writes when the file needs nothing newer). */
  public int minimumVersion() {
    return envelope.minVersion();
  }

  /** Bytes of the header. */
  public int headerLength() {
    return envelope.headerLength();
  }

  /** Where the payload starts in the file: after the header and its padding. */
  public int payloadOffset() {
    return payloadOffset;
  }

  /** Bytes of the file around a payload: header, padding and footer. */
  public long envelopeLength() {
    return payloadOffset + FOOTER_LENGTH;
  }

  /** The header bytes of format version {@code version}. */
  public byte[] header(int version) {
    return envelope.header(version);
  }

  /** The header bytes of the newest version. */
  public byte[] header() {
    return header(version());
  }

  /** Writes the header of {@code version} and the padding up to the payload. */
  void writeHeader(DataOutput out, int version) throws IOException {
    out.write(header(version));
    out.write(new byte[payloadOffset - headerLength()]);
  }

  /**
   * Checks the first {@link #headerLength()} bytes of a file claimed to be this kind of file,
   * naming what is wrong: a foreign file, another store file, or an unsupported version.
   *
   * @return the format version found, one this code reads
   * @throws CorruptStoreException unless {@code bytes} starts with this file's header
   */
  public int checkHeader(byte[] bytes, String path) {
    return envelope.checkHeader(bytes, path);
  }
}
