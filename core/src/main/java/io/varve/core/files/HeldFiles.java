package io.varve.core.files;

import java.nio.file.Path;
import java.util.UUID;

/**
 * The lock files that code of this JVM holds, whatever class loader loaded it. POSIX drops every
 * lock a process holds on a file when any of its descriptors of that file closes, so no code of
 * the process may open and close a file that other code of it holds locked; this register is how
 * it knows. Varve may be loaded more than once in one process (an application server, a Spark
 * job's isolated loaders), so a register in a static field of its own would not do: its entries
 * live in the system properties, which every loader shares, under {@value #PREFIX} and the path.
 * Stateless; thread-safe.
 */
public final class HeldFiles {
  /** The prefix of the system properties that register the files held in this JVM. */
  static final String PREFIX = "io.varve.held-file:";

  private HeldFiles() {}

  /**
   * Registers {@code file} as held, unless code of this JVM holds it.
   *
   * @param file the file's path as every holder spells it (a real or a normalized absolute path)
   * @param what who holds it, for diagnostics: "a SILT store"
   * @return the token that {@link #release} takes, or null if the file is held already
   */
  public static String hold(Path file, String what) {
    String token = what + " " + UUID.randomUUID();
    return System.getProperties().putIfAbsent(PREFIX + file, token) == null ? token : null;
  }

  /** Removes the registration {@link #hold} returned {@code token} for; does nothing if it is gone. */
  public static void release(Path file, String token) {
    System.getProperties().remove(PREFIX + file, token);
  }

  /** Whether code of this JVM holds {@code file}. */
  public static boolean isHeld(Path file) {
    return System.getProperties().containsKey(PREFIX + file);
  }
}
