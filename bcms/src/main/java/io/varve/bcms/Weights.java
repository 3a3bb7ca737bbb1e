package io.varve.bcms;

/** Validation and saturating arithmetic of update weights, shared by both sketches. */
final class Weights {
  private Weights() {}

  /** Rejects negative weights: a count-min sketch bounds counts from above only if counts only grow. */
  static void check(long weight) {
    if (weight < 0) {
      throw new IllegalArgumentException("weight must not be negative: " + weight
          + " (a count-min sketch supports increments only)");
    }
  }

  /** {@code a + b}, or {@code max} if the sum passes it; both operands non-negative. */
  static long add(long a, long b, long max) {
    long sum = a + b;
    return sum < 0 || sum > max ? max : sum;
  }
}
