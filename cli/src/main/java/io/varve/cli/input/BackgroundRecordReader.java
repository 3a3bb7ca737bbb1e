package io.varve.cli.input;

import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * {@link RecordReader#inBackground}: a thread of its own runs the source reader and queues its
 * records in batches; {@link #advance} takes them in order. An error of the source travels in the
 * batch after the records read before it, so the caller meets it exactly where a direct read would.
 *
 * <p>Not thread-safe for its caller, as any reader; the source is used by the background thread
 * alone until that thread has ended.
 */
final class BackgroundRecordReader extends RecordReader {
  /** Records per batch: enough to make the queue's cost per record negligible. */
  private static final int BATCH = 1024;

  /** Batches queued ahead: bounds the memory held to a few thousand records. */
  private static final int QUEUED = 8;

  private final RecordReader source;
  private final BlockingQueue<Batch> queue = new ArrayBlockingQueue<>(QUEUED);
  private final Thread thread;
  private Batch current = new Batch(0);
  private int index;

  /** Records read by the source, then how the reading ended (if it did in this batch). */
  private static final class Batch {
    final byte[][] keys;
    final byte[][] values;
    final long[] lines;
    int size;
    boolean last;
    Throwable failure;

    Batch(int capacity) {
      keys = new byte[capacity][];
      values = new byte[capacity][];
      lines = new long[capacity];
    }
  }

  BackgroundRecordReader(RecordReader source) {
    super(source.keysOnly());
    this.source = source;
    thread = new Thread(this::readAhead, "varve-input");
    thread.setDaemon(true);
    thread.start();
  }

  /** The background thread: reads the source to its end or its first error, or until interrupted by close. */
  private void readAhead() {
    boolean keysOnly = source.keysOnly();
    try {
      for (;;) {
        Batch batch = new Batch(BATCH);
        try {
          while (batch.size < BATCH && source.next()) {
            batch.keys[batch.size] = source.key();
            batch.values[batch.size] = keysOnly ? null : source.value();
            batch.lines[batch.size] = source.lineNumber();
            batch.size++;
          }
          batch.last = batch.size < BATCH;
        } catch (RuntimeException | Error e) {
          batch.failure = e;
          batch.last = true;
        }
        queue.put(batch);
        if (batch.last) {
          return;
        }
      }
    } catch (InterruptedException closing) {
      // close() wants the thread to end: nobody takes batches any more.
    }
  }

  @Override
  boolean advance() {
    while (index == current.size) {
      if (current.last) {
        if (current.failure instanceof RuntimeException e) {
          throw e;
        }
        if (current.failure instanceof Error e) {
          throw e;
        }
        return false;
      }
      try {
        current = queue.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for input records", e);
      }
      index = 0;
    }
    index++;
    return true;
  }

  @Override
  byte[] currentKey() {
    return current.keys[index - 1];
  }

  @Override
  byte[] currentValue() {
    return current.values[index - 1];
  }

  @Override
  long recordLine() {
    return current.lines[index - 1];
  }

  /**
   * Stops the background thread and closes the source. A thread blocked reading a pipe does not
   * see the interrupt until input comes: after a second it is left to end (a daemon thread, with
   * the source it still owns) rather than holding up the command's exit.
   */
  @Override
  void closeInput() throws IOException {
    thread.interrupt();
    try {
      thread.join(STOP_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!thread.isAlive()) {
      source.close();
    }
  }

  private static final long STOP_MILLIS = 1000;
}
