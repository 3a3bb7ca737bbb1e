package io.varve.examples.dedup;

import java.io.Closeable;
import java.io.IOException;

/**
 * The fingerprint index of a dedup run: chunk fingerprint (a SHA-1, 20 bytes) to chunk address (8
 * bytes, see {@link Deduplicator#address}). What a WAN optimizer's compression engine keeps (the
 * BufferHash paper, section 8): a chunk whose fingerprint is found was sent before and can be
 * replaced by its address.
 *
 * <p>Implementations say whether they are thread-safe; the {@link Deduplicator} calls one from one
 * thread.
 */
public interface ChunkIndex extends Closeable {
  /** The address recorded for {@code fingerprint}, or {@code null} when it has none. */
  byte[] get(byte[] fingerprint) throws IOException;

  /** Records {@code address} for {@code fingerprint} (replacing any earlier one). */
  void put(byte[] fingerprint, byte[] address) throws IOException;

  /** Bytes of RAM the index holds now, by its own account. */
  long ramBytes();

  /** Bytes the index occupies on disk now (0 for an index in memory). */
  long diskBytes();

  /** What this index is, for a report: {@code "HashMap (in memory)"}. */
  String description();
}
