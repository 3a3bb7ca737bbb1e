package io.varve.core.format;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;

/**
 * The payload stream of a file being read in an {@link Envelope} ({@link Envelope#input}), after
 * its header, checked on creation: checksums every byte; {@link #checkFooter()} checks the footer
 * that follows the payload. Not thread-safe.
 */
public final class EnvelopeInput extends DataInputStream {
  private final Envelope envelope;
  private final CheckedInputStream checked;
  private final String source;
  private final int version;

  EnvelopeInput(Envelope envelope, InputStream in, String source) throws IOException {
    this(envelope, new CheckedInputStream(new BufferedInputStream(in, 1 << 16), new CRC32C()), source);
  }

  private EnvelopeInput(Envelope envelope, CheckedInputStream checked, String source) throws IOException {
    super(checked);
    this.envelope = envelope;
    this.checked = checked;
    this.source = source;
    this.version = envelope.checkHeader(this, source);
  }

  /** The format version the header holds. */
  public int version() {
    return version;
  }

  /**
   * Reads the footer, which must follow the bytes read so far, and checks it against their
   * checksum.
   *
   * @throws CorruptStoreException when the footer is truncated or damaged or the checksums differ
   */
  public void checkFooter() throws IOException {
    int computed = (int) checked.getChecksum().getValue();
    byte[] footer = readNBytes(envelope.footerLength());
    envelope.checkFooter(ByteBuffer.wrap(footer), computed, source);
  }
}
