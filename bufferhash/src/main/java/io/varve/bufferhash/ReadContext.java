package io.varve.bufferhash;

/**
 * One thread's scratch space for lookups (a page buffer, the Bloom candidate words) and what the
 * last lookup found, so that a lookup allocates nothing but the value it returns. Not
 * thread-safe: each thread has its own.
 */
final class ReadContext {
  private byte[] page = new byte[LogFormat.PAGE_BYTES];
  private long[] candidates = new long[4];
  byte[] foundBytes;
  int foundOffset;
  boolean fromFlash;
  int reads;

  byte[] page(int length) {
    if (page.length < length) {
      page = new byte[length];
    }
    return page;
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
