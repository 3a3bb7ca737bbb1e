package io.varve.core.format;

import java.util.zip.CRC32C;

/**
 * A CRC32C bound to the file set that wrote it: the salt's eight bytes (big-endian) first, then the
 * bytes checked; salt 0 gives the plain CRC32C. BufferHash salts its checks with its table id and
 * SILT with its store id, so that a file of another table or store fails them. Feeds numbers byte
 * by byte, so a check allocates nothing beyond its {@link CRC32C}. Stateless; thread-safe.
 */
public final class SaltedCrc32c {
  private SaltedCrc32c() {}

  /** A CRC32C with {@code salt} fed in (nothing when it is 0): feed it the bytes, then take its value. */
  public static CRC32C start(long salt) {
    CRC32C crc = new CRC32C();
    if (salt != 0) {
      update(crc, salt);
    }
    return crc;
  }

  /** The salted CRC32C of {@code bytes[from, from + length)}. */
  public static int of(long salt, byte[] bytes, int from, int length) {
    CRC32C crc = start(salt);
    crc.update(bytes, from, length);
    return (int) crc.getValue();
  }

  /** Feeds the eight bytes of {@code value}, big-endian. */
  public static void update(CRC32C crc, long value) {
    for (int shift = 56; shift >= 0; shift -= 8) {
      crc.update((int) (value >>> shift));
    }
  }

  /** Feeds the four bytes of {@code value}, big-endian. */
  public static void update(CRC32C crc, int value) {
    for (int shift = 24; shift >= 0; shift -= 8) {
      crc.update(value >>> shift);
    }
  }
}
