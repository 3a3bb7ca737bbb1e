package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RetryDelayTest {
  @Test
  void doublesFromTheFirstDelayToTheMaximumAndStartsOverAfterASuccess() {
    RetryDelay delay = new RetryDelay();
    assertEquals(0, delay.delayNanos(0), "nothing failed yet");
    long now = 1_000;
    long expected = RetryDelay.FIRST_NANOS;
    for (int i = 0; i < 40; i++) {
      delay.failed(now);
      assertEquals(expected, delay.delayNanos(now), "after failure " + (i + 1));
      assertEquals(expected / 2, delay.delayNanos(now + expected / 2), "halfway");
      assertEquals(0, delay.delayNanos(now + expected + 1), "past the delay");
      now += expected;
      expected = Math.min(RetryDelay.MAX_NANOS, expected * 2);
    }
    delay.succeeded();
    assertEquals(0, delay.delayNanos(now));
    delay.failed(now);
    assertEquals(RetryDelay.FIRST_NANOS, delay.delayNanos(now));
  }
}
