package io.varve.core.format;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A stream that ends after a given number of bytes of another: a file's payload without its
 * footer, so that a parser cannot read past it and a checksum sees exactly what precedes the
 * footer. Not thread-safe.
 */
public final class BoundedInputStream extends FilterInputStream {
  private long remaining;

  /** Reads at most {@code limit} bytes of {@code in}. */
  public BoundedInputStream(InputStream in, long limit) {
    super(in);
    this.remaining = limit;
  }

  /** The bytes left before the bound. */
  public long remaining() {
    return remaining;
  }

  @Override
  public int read() throws IOException {
    if (remaining == 0) {
      return -1;
    }
    int b = in.read();
    if (b >= 0) {
      remaining--;
    }
    return b;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (remaining == 0) {
      return len == 0 ? 0 : -1;
    }
    int read = in.read(b, off, (int) Math.min(len, remaining));
    if (read > 0) {
      remaining -= read;
    }
    return read;
  }

  @Override
  public long skip(long n) throws IOException {
    long skipped = in.skip(Math.min(n, remaining));
    remaining -= skipped;
    return skipped;
  }

  @Override
  public int available() throws IOException {
    return (int) Math.min(in.available(), remaining);
  }
}
