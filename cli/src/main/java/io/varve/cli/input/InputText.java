package io.varve.cli.input;

import java.io.IOException;
import java.io.Reader;

/**
 * The text the parsers read: the source's chars less a byte order mark (U+FEFF) at the very start
 * (editors on Windows write one, and it would otherwise become part of the first key), in reads
 * that fill the buffer asked for unless the input ends. Whole reads make what the parsers see
 * independent of how the source hands its chars out (a pipe gives what it has): Commons CSV
 * counts a CRLF split across two short reads as two line ends, which shifted the lines reported.
 * Not thread-safe.
 */
final class InputText extends Reader {
  private final Reader in;
  private boolean started;

  InputText(Reader in) {
    this(in, true);
  }

  /** With {@code atInputStart} false (the text goes on from a line inside the input), a U+FEFF first is kept as data. */
  InputText(Reader in, boolean atInputStart) {
    this.in = in;
    this.started = !atInputStart;
  }

  @Override
  public int read(char[] cbuf, int off, int len) throws IOException {
    int filled = 0;
    while (filled < len) {
      int n = in.read(cbuf, off + filled, len - filled);
      if (n < 0) {
        break;
      }
      if (!started && n > 0) {
        started = true;
        if (cbuf[off] == '\uFEFF') {
          System.arraycopy(cbuf, off + 1, cbuf, off, n - 1);
          n--;
        }
      }
      filled += n;
    }
    return filled == 0 && len > 0 ? -1 : filled;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
