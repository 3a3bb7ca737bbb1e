package io.varve.examples.dedup;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * A {@link ChunkIndex} in a {@link HashMap}: the reference that a disk-based index must agree with
 * while it evicts nothing, and the index a run uses when its fingerprints fit in the heap. Never
 * forgets an entry. Not thread-safe.
 */
public final class HashMapChunkIndex implements ChunkIndex {
  /**
   * Heap bytes per entry, estimated from object layouts with compressed references: the map's node
   * (32) and table slot (8 at 0.75 load), the key's {@code ByteBuffer} (48) and its 20-byte array
   * (40), the 8-byte value array (24).
   */
  static final long ESTIMATED_BYTES_PER_ENTRY = 32 + 8 + 48 + 40 + 24;

  private final Map<ByteBuffer, byte[]> map = new HashMap<>();

  @Override
  public byte[] get(byte[] fingerprint) {
    byte[] address = map.get(ByteBuffer.wrap(fingerprint));
    return address == null ? null : address.clone();
  }

  @Override
  public void put(byte[] fingerprint, byte[] address) {
    // Copies: the caller may reuse its arrays, and a ByteBuffer key must never change.
    map.put(ByteBuffer.wrap(fingerprint.clone()), address.clone());
  }

  /** The number of fingerprints recorded. */
  public int size() {
    return map.size();
  }

  /** An estimate ({@value #ESTIMATED_BYTES_PER_ENTRY} bytes per entry), not a measurement. */
  @Override
  public long ramBytes() {
    return map.size() * ESTIMATED_BYTES_PER_ENTRY;
  }

  @Override
  public long diskBytes() {
    return 0;
  }

  @Override
  public String description() {
    return "HashMap (in memory)";
  }

  @Override
  public void close() {
    map.clear();
  }
}
