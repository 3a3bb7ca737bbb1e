package io.varve.core.shard;

import io.varve.core.files.FileReadInterrupted;
import io.varve.core.format.RegularFiles;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import io.varve.core.format.EnvelopeOutput;
import io.varve.core.store.KeyMode;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileReader;
import io.varve.core.store.StoreMeta;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@value #FILE_NAME} file of a sharded store: how keys are routed and which store holds each
 * shard, written last so that a root without it is an unfinished build. The one owner of its
 * layout (also in {@code docs/FORMAT.md}):
 *
 * <pre>
 * File     := Header Payload Footer
 * Header   := magic:int32 = 0x56525645 ("VRVE") nameLength:uint8 = 14 name:ASCII = "varve-manifest"
 *             version:int32 = 1                       (the store files' envelope)
 * Payload  := routing:uint8                           (1: {@link ShardRouter#SCHEME_LO_HIGH_32})
 *             seed:int64                              (the routing seed, which every shard is built with)
 *             keyMode:uint8 signatureBits:uint8?      (every shard's; as in the meta file)
 *             createdMillis:int64
 *             shardCount:int32                        (1 to 65536)
 *             recordCount:int64                       (the sum of the shards')
 *             Shard^shardCount                        (shard i holds the keys routed to i)
 * Shard    := nameLength:uint8 name:ASCII[nameLength] (1 to 255 of [A-Za-z0-9._-], not starting with '.';
 *                                                      distinct; a store directory in the root)
 *             records:int64                           (the store's record count)
 *             bytes:int64                             (the length of all its files, meta included)
 *             storeSeed:int64                         (its meta's seed: the routing seed unless a
 *                                                      128-bit hash collision made the shard rehash)
 *             metaChecksum:int32                      (the CRC32C in its meta file's footer)
 * Footer   := footerMagic:int32 = ~magic checksum:int32   (CRC32C of every byte before it)
 * </pre>
 *
 * <p>Why the meta file's checksum: the meta file lists the size and footer checksum of every other
 * file of its store, so one small read lets a fetcher check that a shard is the one this manifest
 * names, and the files' own footers (checked as they are read, or by a full {@code verify}) then
 * check every byte: a chain from this file's checksum to every byte of every shard, without a
 * second pass over the data to compute a checksum of a whole shard.
 *
 * <p>{@link #parse} treats its input as hostile: every field is checked before it is used, and
 * every defect is a {@link CorruptStoreException} naming the source and the field. An immutable
 * value; thread-safe.
 *
 * @param seed the seed keys are hashed with to route them (and the shards' first seed)
 * @param keyMode what every shard keeps of its keys
 * @param createdMillis when the sharded store was completed (milliseconds since the epoch)
 * @param shards the shards, in routing order
 */
public record ShardManifest(long seed, KeyMode keyMode, long createdMillis, List<Shard> shards) {
  /** The manifest's file name in the root of a sharded store. */
  public static final String FILE_NAME = "_MANIFEST";

  /** The format version written and read. */
  public static final int VERSION = 1;

  /** The header and footer of the manifest: the store files' magic, named {@code varve-manifest}. */
  public static final Envelope ENVELOPE =
      Envelope.builder("varve-manifest").magic(StoreFile.MAGIC).named().versions(VERSION, VERSION).footerMagic().build();

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}");
  private static final int FIXED_PAYLOAD_BYTES = 1 + 8 + 2 + 8 + 4 + 8;
  private static final int MAX_SHARD_BYTES = 1 + 255 + 8 + 8 + 8 + 4;

  /** The longest manifest: 65536 shards of the longest names (18.6 MB); a longer file is refused unread. */
  public static final long MAX_FILE_BYTES =
      ENVELOPE.headerLength() + FIXED_PAYLOAD_BYTES + (long) ShardRouter.MAX_SHARDS * MAX_SHARD_BYTES + ENVELOPE.footerLength();

  /**
   * One shard: a store directory of the root.
   *
   * @param name its directory name in the root
   * @param records its record count
   * @param bytes the length of all its files, meta included
   * @param storeSeed the seed its meta file records
   * @param metaChecksum the CRC32C in its meta file's footer
   */
  public record Shard(String name, long records, long bytes, long storeSeed, int metaChecksum) {
    /** Checks the fields. */
    public Shard {
      checkName(name);
      if (records < 0 || bytes <= 0) {
        throw new IllegalArgumentException("shard " + name + ": " + records + " records in " + bytes + " bytes");
      }
    }
  }

  /** Checks the fields and copies the list. */
  public ShardManifest {
    Objects.requireNonNull(keyMode, "keyMode");
    shards = List.copyOf(shards);
    ShardRouter.checkShardCount(shards.size());
    Set<String> names = new HashSet<>();
    long total = 0;
    for (Shard shard : shards) {
      if (!names.add(shard.name())) {
        throw new IllegalArgumentException("shard name " + shard.name() + " repeated");
      }
      total += shard.records();
      if (total < 0) {
        throw new IllegalArgumentException("more than 2^63 records in all");
      }
    }
  }

  /** The name the builders give shard {@code shard}: {@code shard-00000} to {@code shard-65535}. */
  public static String shardName(int shard) {
    return String.format("shard-%05d", shard);
  }

  /**
   * Checks a shard name: 1 to 255 of {@code [A-Za-z0-9._-]}, not starting with a dot, so that it
   * is one path component of the root, never a temporary directory's name, and never this file's.
   *
   * @throws IllegalArgumentException otherwise
   */
  public static void checkName(String name) {
    if (name == null || !NAME.matcher(name).matches() || name.equals(FILE_NAME)) {
      throw new IllegalArgumentException("not a shard name (1 to 255 of A-Z a-z 0-9 . _ -, not starting with '.'): " + name);
    }
  }

  /** The number of shards. */
  public int shardCount() {
    return shards.size();
  }

  /** The records of every shard. */
  public long recordCount() {
    return shards.stream().mapToLong(Shard::records).sum();
  }

  /** The bytes of every shard's files. */
  public long totalBytes() {
    return shards.stream().mapToLong(Shard::bytes).sum();
  }

  /** The router of this store's keys. */
  public ShardRouter router() {
    return ShardRouter.of(seed, shardCount());
  }

  /** The manifest file's bytes: header, payload, footer. */
  public byte[] toBytes() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(FIXED_PAYLOAD_BYTES + 64 * shards.size());
    try (EnvelopeOutput out = ENVELOPE.output(bytes, VERSION)) {
      out.writeByte(ShardRouter.SCHEME_LO_HIGH_32);
      out.writeLong(seed);
      keyMode.writeTo(out);
      out.writeLong(createdMillis);
      out.writeInt(shards.size());
      out.writeLong(recordCount());
      for (Shard shard : shards) {
        byte[] name = shard.name().getBytes(StandardCharsets.US_ASCII);
        out.writeByte(name.length);
        out.write(name);
        out.writeLong(shard.records());
        out.writeLong(shard.bytes());
        out.writeLong(shard.storeSeed());
        out.writeInt(shard.metaChecksum());
      }
      out.finish();
    } catch (IOException e) {
      throw new AssertionError("never: writing to memory", e);
    }
    return bytes.toByteArray();
  }

  /**
   * Writes the manifest as file {@code path} (which must not exist) and forces it to disk. The
   * caller publishes it: within a staging directory renamed as a whole, or by a rename of its own.
   */
  public void write(Path path) throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer bytes = ByteBuffer.wrap(toBytes());
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
      channel.force(true);
    }
  }

  /**
   * Reads and checks the manifest file {@code path}.
   *
   * @throws CorruptStoreException naming the file and the field on any defect, or when it is no
   *     regular file
   * @throws java.nio.file.NoSuchFileException when it does not exist
   */
  public static ShardManifest read(Path path) throws IOException {
    long size = RegularFiles.attributes(path, "damaged or hostile store").size();
    CorruptStoreException.check(size <= MAX_FILE_BYTES, path + ": " + size + " bytes is longer than any manifest (" + MAX_FILE_BYTES + ")");
    return parse(FileReadInterrupted.reading(path.toString(), () -> Files.readAllBytes(path)), path.toString());
  }

  /**
   * Parses and checks the bytes of a manifest file, trusting none of them: envelope, checksum, then
   * every field.
   *
   * @param source what the bytes are, for messages (a path), or null
   * @throws CorruptStoreException naming the source and the field on any defect
   */
  public static ShardManifest parse(byte[] bytes, String source) {
    String prefix = source == null ? "" : source + ": ";
    ENVELOPE.checkHeader(bytes, source);
    int header = ENVELOPE.headerLength();
    int end = bytes.length - ENVELOPE.footerLength();
    CorruptStoreException.check(end >= header, prefix + "varve-manifest footer truncated: " + bytes.length + " bytes");
    ENVELOPE.checkFooter(bytes, 0, end, source);
    ByteArrayInputStream payload = new ByteArrayInputStream(bytes, header, end - header);
    try {
      ShardManifest manifest = parsePayload(new DataInputStream(payload), end - header);
      CorruptStoreException.check(payload.available() == 0, payload.available() + " unexpected bytes after the shards");
      return manifest;
    } catch (EOFException e) {
      throw new CorruptStoreException(prefix + "manifest payload ends early", e);
    } catch (CorruptStoreException e) {
      throw new CorruptStoreException(prefix + e.getMessage(), e);
    } catch (IOException e) {
      throw new AssertionError("never: reading memory", e);
    }
  }

  private static ShardManifest parsePayload(DataInputStream in, int payloadLength) throws IOException {
    int routing = in.readUnsignedByte();
    CorruptStoreException.check(routing == ShardRouter.SCHEME_LO_HIGH_32,
        "unknown routing scheme " + routing + " (this code routes by scheme " + ShardRouter.SCHEME_LO_HIGH_32 + ")");
    long seed = in.readLong();
    KeyMode keyMode = KeyMode.readFrom(in);
    long createdMillis = in.readLong();
    int shardCount = in.readInt();
    CorruptStoreException.check(shardCount >= 1 && shardCount <= ShardRouter.MAX_SHARDS,
        "shard count " + shardCount + " outside 1 to " + ShardRouter.MAX_SHARDS);
    // Each shard takes at least 30 bytes: a count beyond the payload is refused before any allocation.
    CorruptStoreException.check((long) shardCount * 30 <= payloadLength,
        "shard count " + shardCount + " does not fit in a payload of " + payloadLength + " bytes");
    long recordCount = in.readLong();
    CorruptStoreException.check(recordCount >= 0, "negative record count " + recordCount);
    Shard[] shards = new Shard[shardCount];
    Set<String> names = new HashSet<>();
    long sum = 0;
    for (int i = 0; i < shardCount; i++) {
      String name = readName(in, i);
      CorruptStoreException.check(names.add(name), "shard " + i + ": name " + name + " repeated");
      long records = in.readLong();
      CorruptStoreException.check(records >= 0, "shard " + i + " (" + name + "): negative record count " + records);
      long bytes = in.readLong();
      CorruptStoreException.check(bytes > 0, "shard " + i + " (" + name + "): size " + bytes + " bytes is not positive");
      shards[i] = new Shard(name, records, bytes, in.readLong(), in.readInt());
      sum += records;
      CorruptStoreException.check(sum >= 0 && sum <= recordCount, "shard " + i + " (" + name
          + "): the shards' record counts add up to more than the manifest's " + recordCount);
    }
    CorruptStoreException.check(sum == recordCount,
        "the shards' record counts add up to " + sum + ", the manifest says " + recordCount);
    return new ShardManifest(seed, keyMode, createdMillis, List.of(shards));
  }

  private static String readName(DataInputStream in, int shard) throws IOException {
    int length = in.readUnsignedByte();
    byte[] bytes = in.readNBytes(length);
    if (bytes.length < length) {
      throw new EOFException();
    }
    String name = new String(bytes, StandardCharsets.ISO_8859_1);
    CorruptStoreException.check(NAME.matcher(name).matches() && !name.equals(FILE_NAME),
        "shard " + shard + ": not a shard name: '" + name.replaceAll("[^\\x20-\\x7e]", "?") + "'");
    return name;
  }

  /**
   * Describes the complete store directory {@code directory} as shard {@code name}: reads and
   * checks its meta file, sums its files' lengths and takes the meta file's footer checksum. For
   * whatever writes a manifest after building its shards.
   *
   * @throws CorruptStoreException when its meta file is damaged
   */
  public static Shard describe(Path directory, String name) throws IOException {
    Path metaFile = directory.resolve(StoreFile.META.fileName());
    int metaChecksum = StoreFileReader.verify(metaFile, StoreFile.META);
    StoreMeta meta = StoreMeta.read(metaFile);
    long bytes = Files.size(metaFile);
    for (StoreMeta.FileEntry file : meta.files()) {
      bytes += file.size();
    }
    return new Shard(name, meta.recordCount(), bytes, meta.seed(), metaChecksum);
  }

  /**
   * Checks that the store whose meta is {@code meta} (meta file of {@code metaFileBytes} bytes and
   * footer checksum {@code metaChecksum}) is shard {@code i} as this manifest describes it.
   *
   * @throws CorruptStoreException naming the shard and the first field that differs
   */
  public void checkShard(int i, StoreMeta meta, long metaFileBytes, int metaChecksum) {
    Shard shard = shards.get(i);
    String what = "shard " + i + " of " + shardCount() + " (" + shard.name() + ")";
    CorruptStoreException.check(meta.recordCount() == shard.records(),
        what + " holds " + meta.recordCount() + " records, the manifest says " + shard.records());
    CorruptStoreException.check(meta.seed() == shard.storeSeed(),
        what + " has hash seed " + meta.seed() + ", the manifest says " + shard.storeSeed());
    CorruptStoreException.check(meta.keyMode().equals(keyMode),
        what + " keeps keys as " + meta.keyMode() + ", the manifest says " + keyMode);
    CorruptStoreException.check(metaChecksum == shard.metaChecksum(), String.format(
        "%s: meta file checksum %08x, the manifest says %08x (another store, or a damaged one)", what, metaChecksum, shard.metaChecksum()));
    long bytes = metaFileBytes + meta.files().stream().mapToLong(StoreMeta.FileEntry::size).sum();
    CorruptStoreException.check(bytes == shard.bytes(), what + " has " + bytes + " bytes of files, the manifest says " + shard.bytes());
  }
}
