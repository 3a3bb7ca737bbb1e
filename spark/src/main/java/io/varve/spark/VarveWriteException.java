package io.varve.spark;

/**
 * A {@link VarveSpark#write} whose Spark job failed; nothing was published. The message is the
 * failed task's own (a null key, a duplicate key, a file system error), the cause Spark's exception
 * with the whole story. Immutable; thread-safe.
 */
public final class VarveWriteException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The failure {@code message} of the job that {@code cause} ended. */
  public VarveWriteException(String message, Throwable cause) {
    super(message, cause);
  }
}
