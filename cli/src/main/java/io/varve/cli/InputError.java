package io.varve.cli;

/**
 * Bad input met while a command ran, with the message the user sees after the command's name:
 * the file and where in it ({@code in.tsv: line 4: ...}). Exit code 2. Immutable; thread-safe.
 */
final class InputError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  InputError(String message) {
    super(message);
  }
}
