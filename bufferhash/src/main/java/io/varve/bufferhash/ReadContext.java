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

  /**
   * Units longer than this (of one entry of 64 KiB or more) are read into an array of their own for
   * the one lookup: kept, a thread's context held the largest value the thread ever read, for the
   * thread's life (a pool of threads that read a few 100 MiB values held that many times over).
   */
  static final int KEPT_BYTES = 64 << 10;

  /** The unit being read when it is longer than {@link #KEPT_BYTES}, until {@link #release}. */
  private byte[] large;

  /** The page buffer, at least {@code length} bytes long, that {@link #pageView} read into. */
  byte[] page(int length) {
    if (length > KEPT_BYTES) {
      return large;
    }
    if (page.length < length) {
      page = new byte[length];
      pageView = ByteBuffer.wrap(page);
    }
    return page;
  }

  /** A view of the first {@code length} bytes of {@link #page(int)}, ready to be read into. */
  ByteBuffer pageView(int length) {
    if (length > KEPT_BYTES) {
      large = new byte[length];
      return ByteBuffer.wrap(large);
    }
    page(length);
    pageView.clear().limit(length);
    return pageView;
  }

  /** Lets go of what the last lookup found, once its value is copied out. */
  void release() {
    foundBytes = null;
    large = null;
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
