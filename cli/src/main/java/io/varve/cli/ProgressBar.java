package io.varve.cli;

import io.varve.builder.BuildListener;
import java.io.Console;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.util.Locale;

/**
 * One line on a terminal's stderr, redrawn in place: the phase, the records done (of the total
 * when known, with a bar), records per second in the phase, and the time so far. Quiet (draws
 * nothing) unless stderr is a terminal, so that logs and pipes get only the command's own lines.
 *
 * <p>Written here rather than taken from a library: the one the issue suggests
 * ({@code me.tongfei:progressbar}) brings JLine's terminal support, far more than one line needs.
 *
 * <p>Thread-safe: the builder calls it on its own threads, and {@link #ticking} redraws from a
 * timer thread.
 */
final class ProgressBar implements BuildListener, AutoCloseable {
  /** Redraws at most this often: a terminal does not need more, and a listener must be quick. */
  private static final long REDRAW_NANOS = 200_000_000L;

  private static final int BAR_WIDTH = 24;

  private final PrintStream err;
  private final boolean drawing;
  private final long start = System.nanoTime();
  private String phase;
  private long phaseStart = start;
  private long phaseBase;
  private long lastDraw;
  private int drawnWidth;
  private Thread ticker;

  private ProgressBar(PrintStream err, boolean drawing, String phase) {
    this.err = err;
    this.drawing = drawing;
    this.phase = phase;
  }

  /** A bar on {@code err} that draws only if {@code err} is the process's stderr and that is a terminal. */
  static ProgressBar forTerminal(PrintStream err, String firstPhase) {
    return new ProgressBar(err, err == System.err && stderrIsTerminal(), firstPhase);
  }

  /** A bar that draws whatever {@code err} is, for tests. */
  static ProgressBar drawingTo(PrintStream err, String firstPhase) {
    return new ProgressBar(err, true, firstPhase);
  }

  /**
   * Whether the process has a terminal. {@code System.console()} says so up to JDK 21; from JDK 22
   * it returns a console even without one, and {@code Console.isTerminal()} (absent before 22,
   * hence the reflection) tells.
   */
  private static boolean stderrIsTerminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      Method isTerminal = Console.class.getMethod("isTerminal");
      return (Boolean) isTerminal.invoke(console);
    } catch (ReflectiveOperationException e) {
      return true;
    }
  }

  /** Whether this bar draws at all. */
  boolean drawing() {
    return drawing;
  }

  /** Starts a phase of the command's own ({@code "write"}, {@code "verify"}), counted from now. */
  synchronized void phase(String name) {
    if (!name.equals(phase)) {
      phase = name;
      phaseStart = System.nanoTime();
      phaseBase = 0;
      lastDraw = 0;
    }
  }

  @Override
  public synchronized void progress(Phase libraryPhase, long done, long total) {
    String name = libraryPhase.name().toLowerCase(java.util.Locale.ROOT).replace("input", "read");
    if (!name.equals(phase)) {
      phase(name);
      // The library's count of the new phase may start where an earlier one left off.
      phaseBase = 0;
    }
    draw(done, total, false);
  }

  /**
   * Redraws the phase's elapsed time every half second on a daemon thread, for work that reports
   * no counts (the reader's verification); {@link #close} stops it.
   */
  synchronized void ticking(String name) {
    phase(name);
    if (!drawing || ticker != null) {
      return;
    }
    ticker = new Thread(() -> {
      try {
        for (;;) {
          synchronized (this) {
            draw(-1, -1, true);
          }
          Thread.sleep(500);
        }
      } catch (InterruptedException stopped) {
        // close() stops the ticker.
      }
    }, "varve-progress");
    ticker.setDaemon(true);
    ticker.start();
  }

  private void draw(long done, long total, boolean force) {
    if (!drawing) {
      return;
    }
    long now = System.nanoTime();
    if (!force && now - lastDraw < REDRAW_NANOS && (total < 0 || done < total)) {
      return;
    }
    lastDraw = now;
    String line = line(phase, done - phaseBase, total, (now - phaseStart) / 1e9, (now - start) / 1e9);
    err.print("\r" + line + " ".repeat(Math.max(0, drawnWidth - line.length())));
    err.flush();
    drawnWidth = line.length();
  }

  /** The text of the line: {@code write [#####     ] 52% 5,200,000 / 10,000,000 records, 1.9 M records/s, 3 s}. */
  static String line(String phase, long done, long total, double phaseSeconds, double seconds) {
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%-6s", phase));
    if (total > 0) {
      int filled = (int) (BAR_WIDTH * Math.min(1.0, done / (double) total));
      s.append(" [").append("#".repeat(filled)).append(" ".repeat(BAR_WIDTH - filled)).append(']')
          .append(String.format(Locale.ROOT, " %3d%%", 100 * Math.min(done, total) / total));
    }
    if (done >= 0) {
      s.append(String.format(Locale.ROOT, " %,d", done));
      if (total > 0) {
        s.append(String.format(Locale.ROOT, " / %,d", total));
      }
      s.append(" records");
      if (phaseSeconds > 0.5) {
        s.append(String.format(Locale.ROOT, ", %s records/s", rate(done / phaseSeconds)));
      }
    }
    s.append(String.format(Locale.ROOT, "  %.0f s", seconds));
    return s.toString();
  }

  private static String rate(double perSecond) {
    return perSecond >= 1e6 ? String.format(Locale.ROOT, "%.2f M", perSecond / 1e6) : String.format(Locale.ROOT, "%,.0f", perSecond);
  }

  /** Stops the ticker and clears the line; again after that, does nothing (error paths may call it twice). */
  @Override
  public void close() {
    Thread stopping;
    synchronized (this) {
      stopping = ticker;
      ticker = null;
    }
    if (stopping != null) {
      stopping.interrupt();
      try {
        stopping.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (this) {
      if (drawnWidth > 0) {
        err.print("\r" + " ".repeat(drawnWidth) + "\r");
        err.flush();
        drawnWidth = 0;
      }
    }
  }
}
