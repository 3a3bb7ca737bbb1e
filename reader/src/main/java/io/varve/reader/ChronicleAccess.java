package io.varve.reader;

import java.util.ArrayList;
import java.util.List;

/**
 * The JVM options Chronicle Bytes needs on JDK 17 and later to memory-map files, and the check
 * that they are present. Without them a store is read through plain {@code FileChannel} mappings
 * (slower; see the README), never through Chronicle, whose calls would fail with an {@code
 * IllegalAccessError}. Stateless and thread-safe.
 */
public final class ChronicleAccess {
  /** The options, as given on the {@code java} command line. */
  public static final List<String> JVM_OPTIONS =
      List.of(
          "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED");

  private ChronicleAccess() {}

  /** Whether the JVM grants what {@link #JVM_OPTIONS} grant to this code's module. */
  public static boolean isGranted() {
    return missing().isEmpty();
  }

  /**
   * Throws {@link IllegalStateException} naming the missing options unless the JVM grants what
   * {@link #JVM_OPTIONS} grant to this code's module.
   */
  public static void check() {
    List<String> missing = missing();
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "Varve maps store files with Chronicle Bytes, which needs these JVM options: "
              + String.join(" ", JVM_OPTIONS)
              + " (missing: "
              + String.join(" ", missing)
              + ")");
    }
  }

  private static List<String> missing() {
    Module java = Object.class.getModule();
    Module self = ChronicleAccess.class.getModule();
    List<String> missing = new ArrayList<>();
    if (!java.isOpen("java.lang.reflect", self)) {
      missing.add(JVM_OPTIONS.get(0));
    }
    if (!java.isExported("sun.nio.ch", self)) {
      missing.add(JVM_OPTIONS.get(1));
    }
    if (!java.isExported("jdk.internal.ref", self)) {
      missing.add(JVM_OPTIONS.get(2));
    }
    return missing;
  }
}
