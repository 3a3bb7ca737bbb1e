package io.varve.bufferhash;

import io.varve.core.hash.KeyHasher;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The current entries of one super table, for {@link BufferHash#forEach}: the newest version of
 * each key, from its buffers newest first and then its incarnations newest first, deletes hiding
 * older versions. Stateless.
 */
final class CurrentEntries {
  private CurrentEntries() {}

  /** Adds {@code table}'s current entries to {@code into} as {key, value} pairs; the caller holds its read lock. */
  static void collect(SuperTable table, LogWriter writer, KeyHasher hasher, List<byte[][]> into) {
    Set<ByteBuffer> seen = new HashSet<>();
    List<WriteBuffer> buffers = table.buffersOldestFirst();
    for (int i = buffers.size() - 1; i >= 0; i--) {
      byte[] arena = buffers.get(i).arena();
      buffers.get(i).forEachEntry(offset -> offer(arena, offset, seen, into));
    }
    for (Incarnation incarnation : table.incarnationsNewestFirst()) {
      byte[] bytes = writer.readIncarnation(incarnation);
      IncarnationCodec.Header header = IncarnationCodec.readHeader(bytes, writer.tableId(), writer.where(incarnation));
      IncarnationCodec.decode(bytes, header, incarnation.startPage, hasher, new long[2][], (unit, at, size) -> offer(unit, at, seen, into), writer.where(incarnation));
    }
  }

  private static void offer(byte[] bytes, int offset, Set<ByteBuffer> seen, List<byte[][]> into) {
    byte[] key = WriteBuffer.key(bytes, offset);
    if (seen.add(ByteBuffer.wrap(key))) {
      byte[] value = WriteBuffer.value(bytes, offset);
      if (value != null) {
        into.add(new byte[][] {key, value});
      }
    }
  }
}
