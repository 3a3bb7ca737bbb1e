package io.varve.core.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Every way an {@link Envelope} refuses input, with its message; and the bytes of each variant. */
class EnvelopeTest {
  private static final Envelope NAMED =
      Envelope.builder("varve-test").magic(0x56525645).named().footerMagic().versions(2, 3).build();
  private static final Envelope PLAIN = Envelope.builder("test index").magic(0x56454354).versions(1, 2).build();

  @Test
  void namedHeaderAndFooterHaveTheStoreFileLayout() {
    byte[] header = NAMED.header(3);
    ByteBuffer expected = ByteBuffer.allocate(4 + 1 + 10 + 4).putInt(0x56525645).put((byte) 10)
        .put("varve-test".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).putInt(3);
    assertArrayEquals(expected.array(), header);
    assertEquals(19, NAMED.headerLength());
    assertArrayEquals(ByteBuffer.allocate(8).putInt(~0x56525645).putInt(0x12345678).array(), NAMED.footer(0x12345678));
    assertEquals(3, NAMED.checkHeader(header, "f"));
  }

  @Test
  void littleEndianLongMagicAndByteVersionKeepTheirBytes() {
    Envelope sketch = Envelope.builder("sketch").longMagic(0x534D_4345_5652_4156L).littleEndian().versions(1, 1).build();
    assertArrayEquals("VARVECMS\1\0\0\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII), sketch.header(1));
    assertArrayEquals(new byte[] {0x78, 0x56, 0x34, 0x12}, sketch.footer(0x12345678));
    assertEquals(1, sketch.checkHeader(sketch.header(1), "s"));
    Envelope log = Envelope.builder("log").magic(0x56424853).byteVersion().versions(1, 1).build();
    assertArrayEquals(new byte[] {0x56, 0x42, 0x48, 0x53, 1, 0, 0, 0}, log.header(1));
    assertEquals(1, log.checkHeader(log.header(1), "l"));
  }

  @Test
  void wrongMagicIsNamed() {
    byte[] header = NAMED.header(2);
    header[0] = 0x50;
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> NAMED.checkHeader(header, "dir/f"));
    assertEquals("dir/f: not a varve-test file: magic 0x50525645, expected 0x56525645", e.getMessage());
  }

  @Test
  void otherFormatNameIsNamed() {
    Envelope other = Envelope.builder("varve-else").magic(0x56525645).named().footerMagic().versions(2, 3).build();
    CorruptStoreException e =
        assertThrows(CorruptStoreException.class, () -> NAMED.checkHeader(other.header(2), "dir/f"));
    assertEquals("dir/f: expected a varve-test file, found varve-else", e.getMessage());
  }

  @Test
  void versionsTooNewAndTooOldAreNamed() {
    Envelope wide = Envelope.builder("varve-test").magic(0x56525645).named().footerMagic().versions(1, 4).build();
    CorruptStoreException tooNew = assertThrows(CorruptStoreException.class, () -> NAMED.checkHeader(wide.header(4), "f"));
    assertEquals("f: varve-test format version 4 is not supported (this code reads versions 2 to 3)", tooNew.getMessage());
    CorruptStoreException tooOld = assertThrows(CorruptStoreException.class, () -> NAMED.checkHeader(wide.header(1), "f"));
    assertEquals("f: varve-test format version 1 is not supported (this code reads versions 2 to 3)", tooOld.getMessage());
    Envelope one = Envelope.builder("one").magic(7).versions(2, 2).build();
    CorruptStoreException onlyOne =
        assertThrows(CorruptStoreException.class, () -> one.checkHeader(ByteBuffer.allocate(8).putInt(7).putInt(3).array(), null));
    assertEquals("one format version 3 is not supported (this code reads version 2 only)", onlyOne.getMessage());
    assertThrows(IllegalArgumentException.class, () -> NAMED.header(4));
  }

  @Test
  void truncatedHeaderIsNamed() {
    byte[] header = Arrays.copyOf(NAMED.header(2), 10);
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> NAMED.checkHeader(header, "f"));
    assertEquals("f: varve-test header truncated", e.getMessage());
  }

  @Test
  void truncatedFooterIsNamed() throws IOException {
    byte[] file = written(PLAIN, 1, 42L);
    byte[] cut = Arrays.copyOf(file, file.length - 1);
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> readBack(PLAIN, cut));
    assertEquals("idx: test index footer truncated: 3 bytes of 4", e.getMessage());
  }

  @Test
  void wrongFooterMagicIsNamed() {
    ByteBuffer footer = ByteBuffer.wrap(NAMED.footer(5));
    footer.putInt(0, 0);
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> NAMED.storedChecksum(footer, "f"));
    assertEquals("f: bad varve-test footer magic 0x0, expected 0xa9ada9ba (truncated or damaged file)", e.getMessage());
    assertEquals(5, NAMED.storedChecksum(ByteBuffer.wrap(NAMED.footer(5)), "f"));
  }

  @Test
  void checksumMismatchIsNamedWithBothValues() throws IOException {
    byte[] file = written(PLAIN, 2, 42L);
    assertEquals(42L, readBack(PLAIN, file));
    file[PLAIN.headerLength() + 7] ^= 1; // the payload's last byte
    int stored = ByteBuffer.wrap(file, file.length - 4, 4).getInt();
    int computed = Envelope.crc32c(file, 0, file.length - 4);
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> readBack(PLAIN, file));
    assertEquals(
        "idx: test index checksum mismatch: stored 0x" + Integer.toHexString(stored) + ", computed 0x"
            + Integer.toHexString(computed) + " (the file is damaged)",
        e.getMessage());
  }

  @Test
  void streamsWriteHeaderPayloadAndFooterChecksummedAsAWhole() throws IOException {
    byte[] file = written(NAMED, 3, -1L);
    assertEquals(NAMED.headerLength() + 8 + NAMED.footerLength(), file.length);
    assertArrayEquals(NAMED.header(3), Arrays.copyOf(file, NAMED.headerLength()));
    ByteBuffer footer = ByteBuffer.wrap(file, file.length - 8, 8).slice();
    assertEquals(Envelope.crc32c(file, 0, file.length - 8), NAMED.storedChecksum(footer, "f"));
    EnvelopeInput in = NAMED.input(new ByteArrayInputStream(file), "f");
    assertEquals(3, in.version());
    assertEquals(-1L, in.readLong());
    in.checkFooter();
  }

  private static byte[] written(Envelope envelope, int version, long payload) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    EnvelopeOutput out = envelope.output(bytes, version);
    out.writeLong(payload);
    out.finish();
    return bytes.toByteArray();
  }

  private static long readBack(Envelope envelope, byte[] file) throws IOException {
    EnvelopeInput in = envelope.input(new ByteArrayInputStream(file), "idx");
    long payload = in.readLong();
    in.checkFooter();
    return payload;
  }
}
