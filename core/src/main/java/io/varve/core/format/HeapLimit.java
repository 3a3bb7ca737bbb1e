package io.varve.core.format;

/**
 * Refuses, before anything is allocated, memory that the heap can never hold: sized structures
 * (a sketch's counters, buffers, tables) were otherwise allocated piece by piece until the heap
 * ran out, in an {@link OutOfMemoryError} that any thread of the process could meet first.
 * Stateless; thread-safe.
 */
public final class HeapLimit {
  private HeapLimit() {}

  /**
   * Throws an {@link IllegalArgumentException} reading "{@code subject} more than the heap can hold
   * (<i>max</i> bytes at most, -Xmx)" and then {@code advice} when {@code bytes} exceed the heap's
   * maximum ({@link Runtime#maxMemory}).
   *
   * @param subject what asks for the memory, e.g. "memoryBytes 4096 is"
   * @param advice what to do, starting with its own separator (": give ..."), or empty
   */
  public static void check(long bytes, String subject, String advice) {
    long heap = Runtime.getRuntime().maxMemory();
    if (bytes > heap) {
      throw new IllegalArgumentException(subject + " more than the heap can hold (" + heap + " bytes at most, -Xmx)" + advice);
    }
  }
}
