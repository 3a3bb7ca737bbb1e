package io.varve.core.format;

/**
 * Thrown when bytes that Varve reads (a store file, a serialized index, a sketch) are damaged,
 * truncated, of a foreign format or of an unsupported version. Every structure reports corrupt input
 * with this one type, whether found while opening or during a lookup; the message names what was
 * wrong and where.
 *
 * <p>Not final: a format may name one defect with a subtype (SILT's log shorter than its last
 * sync), which every caller of this type still catches.
 *
 * <p>Immutable, like every exception here; safe to share between threads.
 */
public class CorruptStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with a message that names what is damaged and where. */
  public CorruptStoreException(String message) {
    super(message);
  }

  /** Creates the exception with a message and the low-level error that revealed the damage. */
  public CorruptStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * Throws a {@code CorruptStoreException} with {@code message} unless {@code condition} holds.
   * The message is built before the call, error or not: in a check run per record, page or get,
   * write {@code if (!condition) throw new CorruptStoreException(...)} instead.
   */
  public static void check(boolean condition, String message) {
    if (!condition) {
      throw new CorruptStoreException(message);
    }
  }
}
