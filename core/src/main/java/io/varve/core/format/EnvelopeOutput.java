package io.varve.core.format;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;

/**
 * The payload stream of a file being written in an {@link Envelope} ({@link Envelope#output}):
 * checksums every byte, header included; {@link #finish()} writes the footer. Closing it does not
 * close the underlying stream. Not thread-safe.
 */
public final class EnvelopeOutput extends DataOutputStream {
  private final Envelope envelope;
  private final CheckedOutputStream checked;
  private boolean finished;

  EnvelopeOutput(Envelope envelope, OutputStream out) {
    this(envelope, new CheckedOutputStream(out, new CRC32C()));
  }

  private EnvelopeOutput(Envelope envelope, CheckedOutputStream checked) {
    super(new BufferedOutputStream(checked, 1 << 16));
    this.envelope = envelope;
    this.checked = checked;
  }

  /** Writes the footer after what was written, and flushes; call once, after the payload. */
  public void finish() throws IOException {
    if (finished) {
      throw new IllegalStateException(envelope.formatName() + ": already finished");
    }
    flush();
    write(envelope.footer((int) checked.getChecksum().getValue()));
    flush();
    finished = true;
  }

  /** Flushes; leaves the underlying stream open. */
  @Override
  public void close() throws IOException {
    flush();
  }
}
