package io.varve.builder;

import io.varve.core.index.RankIndexBuilder;
import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Feeds a {@link RankIndexBuilder} on a thread of its own: hashes are handed over in blocks, so
 * that building the index (about a third of a merge's work) overlaps reading and writing records.
 * A failure of the index thread surfaces at the next hand-over or at {@link #finish()}. One
 * producer thread; not otherwise thread-safe.
 */
final class IndexFeeder implements AutoCloseable {
  private static final int BLOCK = 1 << 15;
  private static final Block END = new Block(0);

  private final RankIndexBuilder index;
  private final BlockingQueue<Block> ready = new ArrayBlockingQueue<>(4);
  private final BlockingQueue<Block> free = new ArrayBlockingQueue<>(4);
  private final Thread thread;
  private volatile Throwable failure;
  private Block filling = new Block(BLOCK);
  private boolean finished;

  private static final class Block {
    final long[] hi;
    final long[] lo;
    int size;

    Block(int capacity) {
      hi = new long[capacity];
      lo = new long[capacity];
    }
  }

  /** @param index the index to feed, or null for none (a paged store): hashes are then dropped */
  IndexFeeder(RankIndexBuilder index) {
    this.index = index;
    if (index == null) {
      thread = null;
      return;
    }
    for (int i = 0; i < 3; i++) {
      free.add(new Block(BLOCK));
    }
    thread = new Thread(this::consume, "varve-index");
    thread.setDaemon(true);
    thread.start();
  }

  private void consume() {
    try {
      while (true) {
        Block block = ready.take();
        if (block == END) {
          return;
        }
        for (int i = 0; i < block.size; i++) {
          index.add(block.hi[i], block.lo[i]);
        }
        block.size = 0;
        free.put(block);
      }
    } catch (InterruptedException stopped) {
      Thread.currentThread().interrupt();
    } catch (Throwable t) {
      failure = t;
      // Unblock a producer waiting for a free block; it then sees the failure.
      free.offer(new Block(BLOCK));
    }
  }

  /** Adds the next hash (in strictly increasing hash order). */
  void add(long hi, long lo) throws IOException {
    if (index == null) {
      return;
    }
    Block block = filling;
    block.hi[block.size] = hi;
    block.lo[block.size] = lo;
    if (++block.size == BLOCK) {
      handOver(block);
      filling = take();
    }
  }

  /** Waits until every hash is in the index; rethrows a failure of the index thread. */
  void finish() throws IOException {
    if (finished) {
      throw new IllegalStateException("finish() was already called");
    }
    finished = true;
    if (index == null) {
      return;
    }
    handOver(filling);
    handOver(END);
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while building the index", e);
    }
    checkFailure();
  }

  private void handOver(Block block) throws IOException {
    checkFailure();
    try {
      ready.put(block);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while building the index", e);
    }
  }

  private Block take() throws IOException {
    try {
      Block block = free.take();
      checkFailure();
      return block;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while building the index", e);
    }
  }

  private void checkFailure() throws IOException {
    Throwable t = failure;
    if (t instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (t instanceof Error error) {
      throw error;
    }
    if (t != null) {
      throw new IOException(t);
    }
  }

  /** Stops the index thread if {@link #finish()} was not reached. */
  @Override
  public void close() {
    if (thread != null && thread.isAlive()) {
      thread.interrupt();
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
