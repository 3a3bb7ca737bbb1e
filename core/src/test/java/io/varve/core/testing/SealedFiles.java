package io.varve.core.testing;

import io.varve.core.format.Envelope;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Whole files in a Varve envelope for hostile-input fixtures: a payload behind a header of any
 * version (even one the envelope refuses) and a footer whose checksum matches, so that only the
 * payload's own checks can reject the file.
 */
public final class SealedFiles {
  private SealedFiles() {}

  /**
   * {@code payload} behind {@code envelope}'s header with {@code version} written in, and the
   * matching footer. For envelopes whose header ends with an int version (the named ones).
   */
  public static byte[] file(Envelope envelope, int version, byte[] payload) {
    byte[] header = envelope.header(envelope.minVersion());
    ByteBuffer.wrap(header).order(envelope.order()).putInt(header.length - Integer.BYTES, version);
    byte[] body = Arrays.copyOf(header, header.length + payload.length);
    System.arraycopy(payload, 0, body, header.length, payload.length);
    return sealed(envelope, body);
  }

  /** {@code body} followed by the footer that closes it. */
  public static byte[] sealed(Envelope envelope, byte[] body) {
    byte[] file = Arrays.copyOf(body, body.length + envelope.footerLength());
    envelope.putFooter(file, 0, body.length);
    return file;
  }
}
