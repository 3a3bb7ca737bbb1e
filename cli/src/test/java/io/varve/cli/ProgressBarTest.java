package io.varve.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.BuildListener;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressBarTest {
  @Test
  void theLineShowsPhaseCountsRateAndTime() {
    assertEquals("write  [############            ]  50% 5,000,000 / 10,000,000 records, 2.50 M records/s  3 s",
        ProgressBar.line("write", 5_000_000, 10_000_000, 2.0, 3.2));
    assertEquals("read   1,200 records, 600 records/s  2 s", ProgressBar.line("read", 1_200, -1, 2.0, 2.0));
    // Too early for a rate to mean anything; and a phase without counts shows its time alone.
    assertEquals("read   10 records  0 s", ProgressBar.line("read", 10, -1, 0.1, 0.1));
    assertEquals("verify  7 s", ProgressBar.line("verify", -1, -1, 7.0, 7.0));
  }

  @Test
  void quietWhenStderrIsNotATerminal() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    // Tests never run with a terminal on stderr, and a stream that is not System.err never draws.
    try (ProgressBar bar = ProgressBar.forTerminal(new PrintStream(err, true, StandardCharsets.UTF_8), "read")) {
      assertFalse(bar.drawing());
      bar.progress(BuildListener.Phase.INPUT, 1_000_000, -1);
      bar.ticking("verify");
    }
    assertEquals(0, err.size());
  }

  @Test
  void drawsInPlaceAndClearsTheLineAtTheEnd() throws InterruptedException {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try (ProgressBar bar = ProgressBar.drawingTo(new PrintStream(err, true, StandardCharsets.UTF_8), "read")) {
      bar.progress(BuildListener.Phase.INPUT, 1_000_000, -1);
      bar.progress(BuildListener.Phase.WRITE, 10, 10);
      bar.ticking("verify");
      Thread.sleep(50);
    }
    String text = err.toString(StandardCharsets.UTF_8);
    assertTrue(text.startsWith("\rread   1,000,000 records"), text);
    assertTrue(text.contains("\rwrite  [########################] 100% 10 / 10 records"), text);
    assertTrue(text.contains("\rverify  0 s"), text);
    assertFalse(text.contains("\n"), text);
    // Cleared: the last thing written is spaces over the line, then a carriage return.
    assertTrue(text.endsWith(" \r"), text);
  }
}
