package io.varve.silt;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.SaltedCrc32c;
import java.security.SecureRandom;
import java.util.zip.CRC32C;

/**
 * The checksum of a store's logs and hash stores, bound to the store: CRC32C over the store id
 * (eight bytes, big-endian), then the bytes. The id is random, drawn when the store is created and
 * kept in its manifest, so that another store's log or hash store, copied in under a number this
 * store uses, fails its checks instead of serving that store's values. Id 0 is a store made before
 * ids (manifest version 1): its checks are the plain CRC32C, and its files are of version 1.
 *
 * <pre>
 * Check(bytes) := CRC32C(storeId:int64 bytes)     (storeId != 0: log and hash store version 2)
 *               | CRC32C(bytes)                   (storeId == 0: version 1)
 * </pre>
 *
 * Immutable; thread-safe.
 */
final class SiltCheck {
  /** A store made before ids: plain CRC32C, version-1 files. */
  static final SiltCheck NONE = new SiltCheck(0);

  private final long storeId;

  SiltCheck(long storeId) {
    this.storeId = storeId;
  }

  /** A new store's id: random, never 0. */
  static long newStoreId() {
    SecureRandom random = new SecureRandom();
    long id;
    do {
      id = random.nextLong();
    } while (id == 0);
    return id;
  }

  long storeId() {
    return storeId;
  }

  /** The version of the logs and hash stores this store writes and reads: 2 with an id, else 1. */
  int fileVersion() {
    return storeId == 0 ? 1 : 2;
  }

  /** Check({@code bytes[from, from + length)}). */
  int of(byte[] bytes, int from, int length) {
    return SaltedCrc32c.of(storeId, bytes, from, length);
  }

  /** A CRC32C with the id fed in (nothing when it is 0): feed it the bytes, then take its value. */
  CRC32C start() {
    return SaltedCrc32c.start(storeId);
  }

  /**
   * Throws unless a file's {@code version} is this store's: a version-1 file under a store with an
   * id, or a version-2 one under a store without, is another store's (or its copy).
   */
  void checkVersion(int version, String source) {
    CorruptStoreException.check(version == fileVersion(), source + ": a file of version " + version + " where the store's manifest calls for version "
        + fileVersion() + " (another store's file?)");
  }

  /** Why a check failed: damage, or the file of another store. */
  String damaged(String what) {
    return storeId == 0 ? what + " is damaged" : what + " is damaged, or another store's";
  }
}
