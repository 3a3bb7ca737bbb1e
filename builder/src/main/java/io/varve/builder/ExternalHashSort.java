package io.varve.builder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The external sort of a build: records in the order of their 128-bit hashes, within a memory
 * budget. Records go into an in-memory buffer; a full buffer is handed to a background thread
 * (two for large records, half the partitions each) that appends its records to 256 hash-prefix
 * partition files while the caller fills the other buffer. {@link #finish} then gives the records
 * back as sorted chunks in hash order: each partition loaded and sorted by a background thread
 * while the caller consumes the previous one. A partition too large for memory is split again by the next 8 hash bits; one whose records
 * all share one hash (a key repeated more often than memory holds) is reduced to its distinct
 * keys, under the {@link DuplicatePolicy}. Input that never spilled is sorted in memory.
 *
 * <p>Not thread-safe: one thread adds and reads the chunks; the sort's own background threads
 * spill and load. {@link #close} and {@link #stop} may come from another thread (a builder closed
 * by a shutdown hook while its input is read): a spill that would start after the close fails
 * before it creates a file, so that nothing is left for the next run to remove.
 */
final class ExternalHashSort {
  /**
   * The sort's own threads: each spills a share of a full buffer's partitions when its records are
   * large; one of them loads the partitions back at the end. (Two loaders, each with half the
   * memory, were slower.)
   */
  private static final int SPILL_THREADS = 2;
  /**
   * Records of this mean size and more are spilled by {@link #SPILL_THREADS} threads; smaller ones
   * by one, since each thread reads every record's hash to find its share.
   */
  private static final long SHARED_SPILL_RECORD_BYTES = 256;

  /** Where the sort may create its files: made on first use, deleted by the caller. */
  interface Workspace {
    Path get() throws IOException;
  }

/** One range of hash order: a spill file and the hash bits its records share. */
record Leaf(Path path, int sharedPrefixBits) {}

/** What the chunk producer hands to the writing thread: a sorted buffer, the end, or a failure. */
private record Chunk(RecordBuffer buffer, Throwable failure) {
  static final Chunk END = new Chunk(null, null);
}

  private final long memoryBudget;
  private final RecordHasher hasher;
  private final Workspace workspace;
  private RecordBuffer filling;
  private RecordBuffer spare;
  /** Volatile: {@link #stop} may come from another thread. */
  private volatile ExecutorService background;
  /** The shares of the last spill, each on a background thread; empty when none is in flight. */
  private final List<Future<?>> pendingSpill = new ArrayList<>();
  private HashPartitions partitions;
  private int spills;
  private final OversizedPartitions oversized;
  /**
   * The failure of a spill, or null: its buffer's records went to the partitions in part, so the
   * input is incomplete and every later call is refused.
   */
  private Throwable spillFailure;
  /**
   * Guards {@link #closed}: a spill creates its directories and hands its tasks over holding it,
   * so that a close from another thread comes either before (the spill then fails) or after (the
   * close then stops the spill's tasks, and the caller deletes the files they wrote).
   */
  private final Object spillStart = new Object();
  /** Volatile as well: {@link #add} reads it without the lock, once per record. */
  private volatile boolean closed;

  /**
   * @param memoryBudget bytes of the two record buffers together
   * @param hasher the hash the records are sorted by (spill files are read back with it)
   */
  ExternalHashSort(long memoryBudget, RecordHasher hasher, DuplicatePolicy duplicatePolicy, Workspace workspace) {
    this.memoryBudget = memoryBudget;
    this.hasher = hasher;
    this.workspace = workspace;
    this.filling = new RecordBuffer(memoryBudget / 2);
    this.spare = new RecordBuffer(memoryBudget / 2);
    this.oversized = new OversizedPartitions(memoryBudget, hasher, duplicatePolicy, spillBufferBytes());
  }

  /**
   * Adds a record whose key hashes to {@code hi, lo}.
   *
   * @throws IllegalStateException once {@link #close} ran, also from another thread during this call
   */
  void add(long hi, long lo, byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) throws IOException {
    checkNoSpillFailure();
    if (closed) {
      throw closedWhileAdding(null);
    }
    try {
      if (!filling.add(hi, lo, key, keyOffset, keyLength, value, valueOffset, valueLength)) {
        spillOrFail();
        if (!filling.add(hi, lo, key, keyOffset, keyLength, value, valueOffset, valueLength)) {
          throw new IllegalStateException("an empty buffer refused a record");
        }
      }
    } catch (RuntimeException e) {
      // A close from another thread (a shutdown hook) releases the buffers under this call, which
      // then fails on them however it happens to: it is the close that the caller must hear of.
      if (closed) {
        throw closedWhileAdding(e);
      }
      throw e;
    }
  }

  private static IllegalStateException closedWhileAdding(RuntimeException cause) {
    return new IllegalStateException("the sort was closed (from another thread): the record was not added", cause);
  }

  /** Buffers handed to the background thread so far. */
  int spills() {
    return spills;
  }

  /** Repeats of a key dropped inside the sort ({@link OversizedPartitions#reducedDuplicates}); final once the chunks ended. */
  long reducedDuplicates() {
    return oversized.reducedDuplicates();
  }

  /** Ends the input: the records as sorted chunks, in hash order. Call once. */
  Chunks finish() throws IOException {
    checkNoSpillFailure();
    if (partitions == null) {
      return new MemoryChunk();
    }
    // Everything goes through the partitions: the last buffer too.
    spillOrFail();
    try {
      awaitSpill();
    } catch (IOException | RuntimeException | Error e) {
      spillFailure = e;
      throw e;
    }
    partitions.close();
    filling.clear();
    return new PartitionChunks();
  }

  /** Sorted chunks of records in hash order. */
  abstract static class Chunks {
    /** The next chunk, sorted; null after the last. */
    abstract RecordBuffer next() throws IOException;

    /** Gives a chunk back once used. */
    void release(RecordBuffer chunk) {}

    /** Stops producing chunks (also before the last) and reports a failure of the producer. */
    void close() throws IOException {}
  }

  private ExecutorService background() {
    if (background == null) {
      AtomicInteger threads = new AtomicInteger();
      background =
          Executors.newFixedThreadPool(
              SPILL_THREADS,
              task -> {
                Thread thread = new Thread(task, "varve-build-" + threads.incrementAndGet());
                thread.setDaemon(true);
                return thread;
              });
    }
    return background;
  }

  /**
   * Hands the full buffer to the background threads and continues with the other one. Large
   * records are spilled by two threads, each for half the partitions: the caller's core, idle
   * while one thread spilled them (their spill costs more than filling a buffer), spills too.
   */
  private void spill() throws IOException {
    awaitSpill();
    synchronized (spillStart) {
      if (closed) {
        throw new IOException("the sort was closed (from another thread) before a spill: nothing was written to disk");
      }
      startSpill();
    }
  }

  private void startSpill() throws IOException {
    if (partitions == null) {
      partitions = new HashPartitions(workspace.get().resolve("partitions"), 0, spillBufferBytes());
    }
    RecordBuffer full = filling;
    filling = spare;
    spare = full;
    spills++;
    int shares = full.averageRecordBytes() >= SHARED_SPILL_RECORD_BYTES ? SPILL_THREADS : 1;
    AtomicInteger sharesLeft = new AtomicInteger(shares);
    for (int share = 0; share < shares; share++) {
      int from = share * HashPartitions.COUNT / shares;
      int to = (share + 1) * HashPartitions.COUNT / shares;
      pendingSpill.add(
          background()
              .submit(
                  () -> {
                    partitions.spill(full, from, to);
                    partitions.flush(from, to);
                    if (sharesLeft.decrementAndGet() == 0) {
                      full.clear();
                    }
                    return null;
                  }));
    }
  }

  /** {@link #spill}, remembering a failure: the records of a buffer whose spill failed are lost. */
  private void spillOrFail() throws IOException {
    try {
      spill();
    } catch (IOException | RuntimeException | Error e) {
      spillFailure = e;
      throw e;
    }
  }

  /**
   * Refuses to go on once a spill failed: the records of its buffer reached the partition files
   * in part, and its buffer may still be in use, so sorting on would lose or mix up records.
   */
  private void checkNoSpillFailure() {
    if (spillFailure != null) {
      throw new IllegalStateException(
          "records could not be spilled to disk earlier (" + spillFailure
              + "): some of the records added before are lost, so no complete store can be made of this input;"
              + " close it and start again",
          spillFailure);
    }
  }

  private int spillBufferBytes() {
    return (int) Math.max(4 << 10, Math.min(64 << 10, memoryBudget / 16 / HashPartitions.COUNT));
  }

  private void awaitSpill() throws IOException {
    IOException failure = null;
    for (Future<?> share : pendingSpill) {
      try {
        share.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failure = failure == null ? new IOException("interrupted while spilling", e) : failure;
      } catch (CancellationException e) {
        failure = failure == null ? new IOException("the sort was stopped before a spill ran (closed from another thread)", e) : failure;
      } catch (ExecutionException e) {
        if (failure == null) {
          failure = rethrow(e.getCause());
        }
      }
    }
    pendingSpill.clear();
    if (failure != null) {
      throw failure;
    }
  }

  /** The whole input, held in memory. */
  private final class MemoryChunk extends Chunks {
    private boolean given;

    @Override
    RecordBuffer next() {
      if (given) {
        return null;
      }
      given = true;
      filling.sort();
      return filling;
    }
  }

  /**
   * The partitions in hash order, each loaded and sorted by the background thread while the
   * caller consumes the previous one; a partition that does not fit in memory is split into
   * leaves first.
   */
  private final class PartitionChunks extends Chunks {
    private final BlockingQueue<RecordBuffer> free = new ArrayBlockingQueue<>(2);
    private final BlockingQueue<Chunk> ready = new ArrayBlockingQueue<>(3);
    private final Future<?> producer;
    private boolean ended;

    PartitionChunks() {
      free.add(filling);
      free.add(spare);
      producer =
          background()
              .submit(
                  () -> {
                    try {
                      for (int p = 0; p < HashPartitions.COUNT; p++) {
                        Path path = partitions.path(p);
                        if (path != null) {
                          produce(new Leaf(path, HashPartitions.BITS));
                        }
                      }
                      ready.put(Chunk.END);
                    } catch (InterruptedException stopped) {
                      Thread.currentThread().interrupt();
                    } catch (Throwable failure) {
                      ready.offer(new Chunk(null, failure));
                    }
                    return null;
                  });
    }

    /**
     * Loads a leaf, sorted, into a free buffer, and deletes its file: its records now live in
     * memory and then in the data file, and a deleted file's dirty pages need no writing back.
     * Splits the leaf if it does not fit.
     */
    private void produce(Leaf leaf) throws IOException, InterruptedException {
      RecordBuffer buffer = free.take();
      buffer.clear(leaf.sharedPrefixBits());
      boolean fits = true;
      try (RecordCursor cursor = SpillFile.read(leaf.path(), 1 << 16, hasher)) {
        while (cursor.next()) {
          RecordSlice r = cursor.record;
          if (!buffer.addEncoded(cursor.hi, cursor.lo, r)) {
            fits = false;
            break;
          }
        }
      }
      if (fits) {
        Files.delete(leaf.path());
        buffer.sort();
        ready.put(new Chunk(buffer, null));
        return;
      }
      buffer.clear();
      free.put(buffer);
      for (Leaf part : oversized.split(leaf)) {
        produce(part);
      }
    }

    @Override
    RecordBuffer next() throws IOException {
      if (ended) {
        return null;
      }
      Chunk chunk;
      try {
        // A producer stopped by stop() ends without its last chunk: wait for it, not forever.
        while ((chunk = ready.poll(100, TimeUnit.MILLISECONDS)) == null) {
          if (producer.isDone() && (chunk = ready.poll()) == null) {
            throw new IOException("the sort was stopped before it gave back every record");
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while sorting the records", e);
      }
      if (chunk.failure() != null) {
        throw rethrow(chunk.failure());
      }
      if (chunk == Chunk.END) {
        ended = true;
        return null;
      }
      return chunk.buffer();
    }

    @Override
    void release(RecordBuffer chunk) {
      chunk.clear();
      free.add(chunk);
    }

    @Override
    void close() throws IOException {
      if (!ended) {
        producer.cancel(true);
      }
      try {
        producer.get();
      } catch (CancellationException cancelled) {
        // stopped after a failure of the consuming side
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException e) {
        throw rethrow(e.getCause());
      }
    }
  }

  /**
   * Stops the background threads, from any thread, and nothing else: the sort's thread then fails
   * to get its next chunk (or finishes a sort that never spilled), and {@link #close} frees the
   * rest from there.
   */
  void stop() {
    ExecutorService threads = background;
    if (threads != null) {
      cancelUnstarted(threads.shutdownNow());
    }
  }

  /**
   * Cancels the tasks a shutdown took off the queue before they ran: their futures would never
   * complete, and a build waiting on one (a spill handed over just before a close from another
   * thread) waited for ever.
   */
  private static void cancelUnstarted(List<Runnable> neverRun) {
    for (Runnable task : neverRun) {
      if (task instanceof Future<?> future) {
        future.cancel(false);
      }
    }
  }

  /** Stops the background thread, closes the partitions and frees the buffers; the workspace is the caller's. */
  void close() {
    synchronized (spillStart) {
      closed = true; // after a spill that started, if one did: its tasks are stopped below
    }
    if (background != null) {
      cancelUnstarted(background.shutdownNow());
      try {
        background.awaitTermination(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      background = null;
    }
    pendingSpill.clear();
    try {
      if (partitions != null) {
        partitions.close();
      }
    } catch (IOException ignored) {
      // the caller deletes the files
    }
    filling.release();
    spare.release();
  }

  static IOException rethrow(Throwable cause) {
    if (cause instanceof IOException io) {
      return io;
    }
    if (cause instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return new IOException(cause);
  }
}
