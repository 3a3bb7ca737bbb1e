package io.varve.bufferhash;

import java.nio.ByteBuffer;

/**
 * One thread's scratch space for lookups (the key's hash, a page buffer and its view, the Bloom
 * candidate words) and what the last lookup found, so that a lookup allocates nothing but the
 * value it returns. Not thread-safe: each thread has its own.
 */
final class ReadContext {
  final long[] hash = new long[2];
  private byte[] page = new byte[LogFormat.PAGE_BYTES];
  private ByteBuffer pageView = ByteBuffer.wrap(page);
  private long[] candidates = new long[4];
  byte[] foundBytes;
  int foundOffset;
  boolean fromFlash;
  int reads;

  /** The page buffer, at least {@code length} bytes long. */
  byte[] page(int length) {
    if (page.length < length) {
      page = new byte[length];
      pageView = ByteBuffer.wrap(page);
    }
    return page;
  }

  /** A view of the first {@code length} bytes of {@link #page(int)}, ready to be read into. */
  ByteBuffer pageView(int length) {
    page(length);
    pageView.clear().limit(length);
    return pageView;
  }

  long[] candidates(int words) {
    if (candidates.length < words) {
      candidates = new long[words];
    }
    return candidates;
  }

  boolean found(byte[] bytes, int offset) {
    foundBytes = bytes;
    foundOffset = offset;
    return true;
  }
}
