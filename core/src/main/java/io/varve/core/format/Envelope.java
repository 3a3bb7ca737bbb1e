package io.varve.core.format;

import java.io.ByteArrayInputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * The header and footer of one kind of file (or self-contained structure) Varve writes, and the
 * one place that writes and checks them, as Lucene's {@code CodecUtil} does for its files. Each
 * format owner holds one {@code Envelope} constant describing its kind; the grammar has the few
 * variants the released formats use, so that every file keeps the bytes it had:
 *
 * <pre>
 * Header := magic:(int32 | int64) Name? Version
 * Name   := nameLength:uint8 name:ASCII[nameLength]   (only formats that name themselves: store files)
 * Version:= version:int32 | version:uint8 reserved:uint8[3]
 * Footer := footerMagic:int32? checksum:int32           (checksum: CRC32C of every byte before the
 *                                                        footer; footerMagic = ~magic, store files only)
 * </pre>
 *
 * Integers are big-endian except in formats declared {@link Builder#littleEndian() little-endian}
 * (the sketch files, whose counters are read in place). A reader checks, in this order and before
 * any payload byte is interpreted: the magic (a foreign file), the name (another Varve file), the
 * version (a newer or retired format), and at the end the footer magic (a truncated file) and the
 * checksum. Every defect is a {@link CorruptStoreException} that names the source, the format and
 * what was expected against what was found.
 *
 * <pre>{@code
 * static final Envelope FORMAT = Envelope.builder("ECT index").magic(0x56454354).versions(1, 2).build();
 * try (EnvelopeOutput out = FORMAT.output(stream, 1)) { out.writeLong(...); out.finish(); }
 * EnvelopeInput in = FORMAT.input(stream, "index");  // header checked; in.version()
 * ... in.readLong() ...; in.checkFooter();
 * }</pre>
 *
 * <p>Immutable and thread-safe; {@link EnvelopeOutput} and {@link EnvelopeInput} are not.
 */
public final class Envelope {
  private final String formatName;
  private final long magic;
  private final int magicBytes;
  private final boolean named;
  private final boolean byteVersion;
  private final boolean footerMagic;
  private final ByteOrder order;
  private final int minVersion;
  private final int maxVersion;

  private Envelope(Builder b) {
    this.formatName = b.formatName;
    this.magic = b.magic;
    this.magicBytes = b.magicBytes;
    this.named = b.named;
    this.byteVersion = b.byteVersion;
    this.footerMagic = b.footerMagic;
    this.order = b.order;
    this.minVersion = b.minVersion;
    this.maxVersion = b.maxVersion;
  }

  /**
   * Starts describing the envelope of the format called {@code formatName}: the name messages
   * use, and the name written in the header of a {@link Builder#named() named} format (ASCII, at
   * most 255 characters).
   */
  public static Builder builder(String formatName) {
    return new Builder(formatName);
  }

  /** The format's name. */
  public String formatName() {
    return formatName;
  }

  /** The oldest version this code reads. */
  public int minVersion() {
    return minVersion;
  }

  /** The newest version this code reads and writes. */
  public int maxVersion() {
    return maxVersion;
  }

  /** The format's magic number (an {@code int} in the low 32 bits unless the magic is 8 bytes). */
  public long magic() {
    return magic;
  }

  /** The byte order of the header's and footer's integers. */
  public ByteOrder order() {
    return order;
  }

  /** Bytes of the header. */
  public int headerLength() {
    return magicBytes + (named ? 1 + formatName.length() : 0) + Integer.BYTES;
  }

  /** Bytes of the footer: the checksum, after the footer magic if the format has one. */
  public int footerLength() {
    return (footerMagic ? Integer.BYTES : 0) + Integer.BYTES;
  }

  /** The footer magic ({@code ~magic}) of a format that has one. */
  public int footerMagic() {
    if (!footerMagic) {
      throw new IllegalStateException(formatName + " has no footer magic");
    }
    return ~(int) magic;
  }

  /**
   * The header bytes of {@code version}.
   *
   * @throws IllegalArgumentException if this code does not know {@code version}
   */
  public byte[] header(int version) {
    if (version < minVersion || version > maxVersion) {
      throw new IllegalArgumentException(formatName + " has versions " + minVersion + " to " + maxVersion + ": " + version);
    }
    ByteBuffer b = ByteBuffer.allocate(headerLength()).order(order);
    if (magicBytes == Long.BYTES) {
      b.putLong(magic);
    } else {
      b.putInt((int) magic);
    }
    if (named) {
      b.put((byte) formatName.length()).put(formatName.getBytes(StandardCharsets.US_ASCII));
    }
    if (byteVersion) {
      b.put((byte) version).put(new byte[3]);
    } else {
      b.putInt(version);
    }
    return b.array();
  }

  /** Writes the header of {@code version}. */
  public void writeHeader(DataOutput out, int version) throws IOException {
    out.write(header(version));
  }

  /**
   * Checks a header read from {@code in}: magic, name, version.
   *
   * @param source what is read, for messages (a path), or null
   * @return the version found, one this code reads
   * @throws CorruptStoreException when the header is not this format's, of a version this code
   *     does not read, or ends early
   */
  public int checkHeader(DataInput in, String source) throws IOException {
    try {
      byte[] magicField = new byte[magicBytes];
      in.readFully(magicField);
      ByteBuffer m = ByteBuffer.wrap(magicField).order(order);
      long found = magicBytes == Long.BYTES ? m.getLong() : m.getInt() & 0xFFFF_FFFFL;
      long expected = magicBytes == Long.BYTES ? magic : magic & 0xFFFF_FFFFL;
      check(found == expected, source, "not " + withArticle() + " file: magic " + hex(found) + ", expected " + hex(expected));
      if (named) {
        byte[] name = new byte[in.readUnsignedByte()];
        in.readFully(name);
        String foundName = new String(name, StandardCharsets.US_ASCII);
        check(foundName.equals(formatName), source, "expected " + withArticle() + " file, found " + foundName);
      }
      byte[] versionField = new byte[Integer.BYTES];
      in.readFully(versionField);
      int version = byteVersion ? versionField[0] & 0xFF : ByteBuffer.wrap(versionField).order(order).getInt();
      check(version >= minVersion && version <= maxVersion, source, formatName + " format version " + version
          + " is not supported (this code reads " + (minVersion == maxVersion ? "version " + maxVersion + " only"
              : "versions " + minVersion + " to " + maxVersion) + ")");
      return version;
    } catch (EOFException e) {
      throw new CorruptStoreException(prefix(source) + formatName + " header truncated", e);
    }
  }

  /**
   * {@link #checkHeader(DataInput, String)} of the header at {@code bytes}' position (which is not
   * moved).
   */
  public int checkHeader(ByteBuffer bytes, String source) {
    // At most the longest header any format can have, so that a large buffer is not copied.
    byte[] header = new byte[Math.min(bytes.remaining(), magicBytes + (named ? 256 : 0) + Integer.BYTES)];
    bytes.duplicate().get(header);
    try {
      return checkHeader(new DataInputStream(new ByteArrayInputStream(header)), source);
    } catch (IOException e) {
      throw new AssertionError("never: a buffer read has no I/O", e);
    }
  }

  /**
   * Whether {@code bytes} start, at their position, with a header of this format of a version this
   * code reads: for a reader that looks for valid structures among stale ones (a log's slots) and
   * skips the others without an error.
   */
  public boolean isHeader(ByteBuffer bytes) {
    try {
      checkHeader(bytes, null);
      return true;
    } catch (CorruptStoreException e) {
      return false;
    }
  }

  /**
   * Whether the footer at {@code footer}'s position is intact and holds {@code computed}: the
   * non-throwing {@link #checkFooter}.
   */
  public boolean isFooterOf(ByteBuffer footer, int computed) {
    ByteBuffer b = footer.duplicate().order(order);
    if (b.remaining() < footerLength() || (footerMagic && b.getInt() != ~(int) magic)) {
      return false;
    }
    return b.getInt() == computed;
  }

  /**
   * Writes the header of {@code version} into {@code bytes} at {@code at}: for a structure built in
   * memory.
   */
  public void putHeader(byte[] bytes, int at, int version) {
    byte[] header = header(version);
    System.arraycopy(header, 0, bytes, at, header.length);
  }

  /**
   * Writes into {@code bytes} at {@code end} the footer closing {@code bytes[from, end)}: their
   * CRC32C, which it returns.
   */
  public int putFooter(byte[] bytes, int from, int end) {
    int checksum = crc32c(bytes, from, end - from);
    byte[] footer = footer(checksum);
    System.arraycopy(footer, 0, bytes, end, footer.length);
    return checksum;
  }

  /**
   * Checks the footer at {@code end} in {@code bytes} against the CRC32C of {@code bytes[from,
   * end)}.
   *
   * @throws CorruptStoreException when it is truncated, damaged or another checksum
   */
  public void checkFooter(byte[] bytes, int from, int end, String source) {
    checkFooter(ByteBuffer.wrap(bytes, end, Math.max(0, Math.min(footerLength(), bytes.length - end))), crc32c(bytes, from, end - from), source);
  }

  /** The non-throwing {@link #checkFooter(byte[], int, int, String)}. */
  public boolean isFooterOf(byte[] bytes, int from, int end) {
    return end >= from && end + footerLength() <= bytes.length
        && isFooterOf(ByteBuffer.wrap(bytes, end, footerLength()), crc32c(bytes, from, end - from));
  }

  /** {@link #checkHeader(ByteBuffer, String)} of {@code bytes} from their start. */
  public int checkHeader(byte[] bytes, String source) {
    return checkHeader(ByteBuffer.wrap(bytes), source);
  }

  /** The footer bytes that close a file whose bytes before the footer have {@code checksum}. */
  public byte[] footer(int checksum) {
    ByteBuffer b = ByteBuffer.allocate(footerLength()).order(order);
    if (footerMagic) {
      b.putInt(~(int) magic);
    }
    return b.putInt(checksum).array();
  }

  /** Writes the footer closing bytes whose CRC32C is {@code checksum}. */
  public void writeFooter(DataOutput out, int checksum) throws IOException {
    out.write(footer(checksum));
  }

  /**
   * The checksum a footer holds, after checking its footer magic: for a reader that compares it
   * with a checksum recorded elsewhere, or computes the file's later.
   *
   * @param footer the {@link #footerLength()} bytes of the footer, from its position
   * @throws CorruptStoreException when the footer magic is wrong (a truncated or damaged file)
   */
  public int storedChecksum(ByteBuffer footer, String source) {
    ByteBuffer b = footer.duplicate().order(order);
    check(b.remaining() >= footerLength(), source, formatName + " footer truncated: " + b.remaining()
        + " bytes of " + footerLength());
    if (footerMagic) {
      int found = b.getInt();
      check(found == ~(int) magic, source, "bad " + formatName + " footer magic " + hex(found & 0xFFFF_FFFFL)
          + ", expected " + hex(~(int) magic & 0xFFFF_FFFFL) + " (truncated or damaged file)");
    }
    return b.getInt();
  }

  /**
   * Checks the footer at {@code footer}'s position against {@code computed}, the CRC32C of every
   * byte before it.
   *
   * @throws CorruptStoreException when the footer is damaged or the checksums differ
   */
  public void checkFooter(ByteBuffer footer, int computed, String source) {
    checkChecksum(storedChecksum(footer, source), computed, source);
  }

  /**
   * Checks that the checksum a footer holds equals the one computed over the bytes before it.
   *
   * @throws CorruptStoreException naming both when they differ
   */
  public void checkChecksum(int stored, int computed, String source) {
    check(stored == computed, source, formatName + " checksum mismatch: stored " + hex(stored & 0xFFFF_FFFFL)
        + ", computed " + hex(computed & 0xFFFF_FFFFL) + " (the file is damaged)");
  }

  /** The CRC32C of {@code bytes[offset, offset + length)}, the checksum every footer holds. */
  public static int crc32c(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }

  /**
   * Writes the header of {@code version} to {@code out} and returns the stream for the payload;
   * its {@link EnvelopeOutput#finish()} writes the footer.
   */
  public EnvelopeOutput output(OutputStream out, int version) throws IOException {
    EnvelopeOutput output = new EnvelopeOutput(this, Objects.requireNonNull(out, "out"));
    output.write(header(version));
    return output;
  }

  /**
   * Reads and checks the header from {@code in} and returns the stream of the payload, positioned
   * after the header; {@link EnvelopeInput#checkFooter()} checks the footer after the payload.
   * Reads ahead of what it returns: {@code in} is not usable afterwards.
   *
   * @param source what is read, for messages, or null
   */
  public EnvelopeInput input(InputStream in, String source) throws IOException {
    return new EnvelopeInput(this, in, source);
  }

  /** "a varve-data", "an ECT index": the format name with its indefinite article. */
  private String withArticle() {
    return ("AEIOUaeiou".indexOf(formatName.charAt(0)) >= 0 ? "an " : "a ") + formatName;
  }

  private static void check(boolean condition, String source, String message) {
    if (!condition) {
      throw new CorruptStoreException(prefix(source) + message);
    }
  }

  private static String prefix(String source) {
    return source == null ? "" : source + ": ";
  }

  private static String hex(long value) {
    return "0x" + Long.toHexString(value);
  }

  @Override
  public String toString() {
    return formatName + " envelope (versions " + minVersion + " to " + maxVersion + ")";
  }

  /** Describes an {@link Envelope}; by default a 4-byte big-endian magic, an int32 version, no name, no footer magic. */
  public static final class Builder {
    private final String formatName;
    private long magic;
    private int magicBytes;
    private boolean named;
    private boolean byteVersion;
    private boolean footerMagic;
    private ByteOrder order = ByteOrder.BIG_ENDIAN;
    private int minVersion = -1;
    private int maxVersion = -1;

    private Builder(String formatName) {
      this.formatName = Objects.requireNonNull(formatName, "formatName");
      if (formatName.isEmpty() || formatName.length() > 255 || !StandardCharsets.US_ASCII.newEncoder().canEncode(formatName)) {
        throw new IllegalArgumentException("a format name is 1 to 255 ASCII characters: " + formatName);
      }
    }

    /** A 4-byte magic. */
    public Builder magic(int magic) {
      this.magic = magic;
      this.magicBytes = Integer.BYTES;
      return this;
    }

    /** An 8-byte magic. */
    public Builder longMagic(long magic) {
      this.magic = magic;
      this.magicBytes = Long.BYTES;
      return this;
    }

    /** The header names the format after the magic (formats that share one magic). */
    public Builder named() {
      this.named = true;
      return this;
    }

    /** The version is one byte followed by three reserved zero bytes. */
    public Builder byteVersion() {
      this.byteVersion = true;
      return this;
    }

    /** The footer starts with {@code ~magic}, which tells a truncated file from a damaged one. */
    public Builder footerMagic() {
      this.footerMagic = true;
      return this;
    }

    /** Header and footer integers are little-endian. */
    public Builder littleEndian() {
      this.order = ByteOrder.LITTLE_ENDIAN;
      return this;
    }

    /** The versions this code reads, {@code max} the newest, which it writes. */
    public Builder versions(int min, int max) {
      this.minVersion = min;
      this.maxVersion = max;
      return this;
    }

    /** The envelope described. */
    public Envelope build() {
      if (magicBytes == 0) {
        throw new IllegalStateException(formatName + ": no magic");
      }
      if (minVersion < 0 || maxVersion < minVersion || (byteVersion && maxVersion > 255)) {
        throw new IllegalStateException(formatName + ": versions " + minVersion + " to " + maxVersion);
      }
      if (footerMagic && magicBytes != Integer.BYTES) {
        throw new IllegalStateException(formatName + ": a footer magic needs a 4-byte magic");
      }
      return new Envelope(this);
    }
  }
}
