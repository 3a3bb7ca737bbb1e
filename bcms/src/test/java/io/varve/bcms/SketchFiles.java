package io.varve.bcms;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;

/** Sketch files' bytes read and edited through {@link SketchFile}, for tests that damage or convert them. */
final class SketchFiles {
  private SketchFiles() {}

  /** The header of the file of {@code bytes}, as an open reads it. */
  static SketchFile.Read read(byte[] bytes) {
    try {
      return SketchFile.read((into, position) -> {
        if (position >= bytes.length) {
          return -1;
        }
        int n = (int) Math.min(into.remaining(), bytes.length - position);
        into.put(bytes, (int) position, n);
        return n;
      }, bytes.length, Path.of("in-memory"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The version-1 file of the sketch of the version-2 file {@code bytes}: its one header says what
   * the newest commit record says, and the body is the same bytes at the version-1 offset. What an
   * older build wrote for the same sketch.
   */
  static byte[] version1Of(byte[] bytes) {
    SketchFile.Header h = read(bytes).header();
    SketchFile.Header v1 = new SketchFile.Header(SketchFile.VERSION_1, h.layout(), h.parameters(), h.columnsPerPage(),
        h.pageCount(), new SketchCommit(0, h.state(), h.totalWeight(), h.bodyCrc()), -1);
    byte[] out = new byte[(int) (v1.headerLength() + h.bodyLength())];
    SketchFile.encode(v1).get(out, 0, SketchFile.HEADER_FIELDS_LENGTH);
    System.arraycopy(bytes, h.headerLength(), out, v1.headerLength(), (int) h.bodyLength());
    return out;
  }

  /** A copy of {@code bytes} with {@code record} in commit slot {@code slot}. */
  static byte[] withRecord(byte[] bytes, int slot, SketchCommit record) {
    byte[] copy = bytes.clone();
    record.encode().get(copy, (int) SketchFile.slotOffset(slot), SketchCommit.BYTES);
    return copy;
  }

  /** The record bytes in slot {@code slot}. */
  static byte[] record(byte[] bytes, int slot) {
    int at = (int) SketchFile.slotOffset(slot);
    return Arrays.copyOfRange(bytes, at, at + SketchCommit.BYTES);
  }

  /** The valid record in slot {@code slot}, or null. */
  static SketchCommit recordIn(byte[] bytes, int slot) {
    return SketchCommit.decodeOrNull(ByteBuffer.wrap(bytes, (int) SketchFile.slotOffset(slot), SketchFile.SLOT_SPACING));
  }

  /** The header fields of {@code bytes} as a little-endian buffer over them. */
  static ByteBuffer fields(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * Recomputes the checksum of the fields of {@code version} after a deliberate change, so that
   * field validation is reached.
   */
  static void resealFields(byte[] bytes, int version) {
    int at = version == SketchFile.VERSION_1 ? SketchFile.HEADER_CRC_OFFSET : SketchFile.FIXED_CRC_OFFSET;
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, at);
    fields(bytes).putInt(at, (int) crc.getValue());
  }

  /** Recomputes the checksum of the record in slot {@code slot} after a deliberate change. */
  static void resealRecord(byte[] bytes, int slot) {
    int at = (int) SketchFile.slotOffset(slot);
    CRC32C crc = new CRC32C();
    crc.update(bytes, at, SketchCommit.BYTES - 4);
    fields(bytes).putInt(at + SketchCommit.BYTES - 4, (int) crc.getValue());
  }
}
