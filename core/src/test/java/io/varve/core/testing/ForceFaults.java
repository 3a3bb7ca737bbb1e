package io.varve.core.testing;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The crash tests' forces, by file name: how many succeeded, and one armed to fail, as a failing
 * device's {@code fsync} does, after a number of others pass. Not thread-safe: the recording
 * channels serialize their calls.
 */
public final class ForceFaults {
  /** The real force, run unless this one is to fail. */
  @FunctionalInterface
  public interface Force {
    void run() throws IOException;
  }

  private final Map<String, Integer> forces = new HashMap<>();
  private String failingPrefix;
  private int passing;
  private String fired;

  /** Lets {@code passing} forces of files named {@code prefix}... succeed, then fails the next one; null: none. */
  public void failForce(String prefix, int passing) {
    this.failingPrefix = prefix;
    this.passing = passing;
  }

  /** Runs {@code force} of the file {@code name}, or throws the armed failure without running it. */
  public void force(String name, Force force) throws IOException {
    if (failingPrefix != null && name.startsWith(failingPrefix) && passing-- == 0) {
      failingPrefix = null;
      fired = "failed a force of " + name;
      throw new IOException("Input/output error (injected fsync failure of " + name + ")");
    }
    force.run();
    forces.merge(name, 1, Integer::sum);
  }

  /** The successful forces so far of files whose name starts with {@code prefix}. */
  public int forces(String prefix) {
    return forces.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).mapToInt(Map.Entry::getValue).sum();
  }

  /** What the armed failure did, or null while it has not fired. */
  public String fired() {
    return fired;
  }
}
