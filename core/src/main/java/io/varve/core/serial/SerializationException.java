package io.varve.core.serial;

/**
 * Thrown when a {@link Serializer} cannot turn a value into bytes (for example a string holding an
 * unpaired surrogate, or a byte array of the wrong width) or cannot read a value back because the
 * bytes are malformed. The message names the serializer, what it expected and what it found.
 *
 * <p>Unchecked because the usual cause is a programming error or damaged data that the caller
 * cannot repair on the spot; a lookup API full of checked exceptions would only be wrapped again.
 *
 * <p>Immutable; safe to share between threads.
 */
public final class SerializationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with a message that names the serializer and what it expected. */
  public SerializationException(String message) {
    super(message);
  }

  /** Creates the exception with a message and the low-level error that revealed the problem. */
  public SerializationException(String message, Throwable cause) {
    super(message, cause);
  }
}
