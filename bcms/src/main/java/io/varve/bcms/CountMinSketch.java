package io.varve.bcms;

import io.varve.core.files.MappingFaults;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.HeapLimit;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * The plain count-min sketch: {@code depth} rows of {@code width} saturating counters; an update
 * adds its weight to one counter per row, an estimate is the minimum of the item's counters, never
 * below the item's true total weight.
 *
 * <pre>{@code
 * try (CountMinSketch sketch = CountMinSketch.inMemory(SketchParameters.forError(1e-5, 0.01))) {
 *   sketch.update("apple".getBytes(UTF_8));
 *   sketch.update(42L, 3);                      // long items need no byte array
 *   long apples = sketch.estimate("apple".getBytes(UTF_8));   // >= 1
 * }
 * }</pre>
 *
 * The counters live on the heap ({@link #inMemory}) or in a memory-mapped file ({@link #create},
 * {@link #open}): the baseline of the Buffered Count-Min Sketch paper. On a file larger than RAM each
 * update and estimate touches up to {@code depth} random pages; {@link BufferedCountMinSketch} is the
 * sketch for that case. Sketches may pass 2 GiB. A file sketch's file is complete after {@link
 * #flush} or {@link #close}; a file whose writer stopped before {@code close} refuses to open.
 *
 * <p>Not thread-safe: updates, merges, flushes and close must be confined to one thread or
 * synchronized externally. Estimates (and {@link #estimateAll}) from several threads at once are
 * safe while nothing updates or closes the sketch. Close releases the mapping once no call is inside it (a call racing close
 * on another thread is refused or finishes first); later calls throw {@link IllegalStateException},
 * but those that describe the sketch: {@code parameters}, {@code sizeBytes} and {@code path}.
 *
 * <p>A file sketch's file truncated (or rewritten in place) by another process while the sketch has
 * it mapped makes the call that meets the damage throw {@link CorruptStoreException} naming the
 * file, and every later call too but those that describe the sketch; {@link #close} then releases
 * the sketch without writing the file, and throws it as well. A write through the mapping that the
 * file system cannot take (a full disk under a sparse or copy-on-write file) fails the sketch the
 * same way, with an {@link UncheckedIOException}. The JVM's own error for such an
 * access ({@link InternalError}) never leaves the sketch, not even after a call returned.
 */
public final class CountMinSketch extends HashedSketch {
  private final SketchParameters parameters;
  private final long width;
  private final int depth;
  private final long counterMax;
  private final boolean conservative;
  private final Counters counters;
  private final SketchFileHandle file;
  /** What a fault of the file's mapping becomes; null in memory. */
  private final SketchFileFaults faults;
  private long totalWeight;
  /** Open, failed or closed, and the calls inside the mapping that close waits for. */
  private final CallGate calls;

  private CountMinSketch(SketchParameters parameters, Counters counters, SketchFileHandle file, long totalWeight) {
    super(parameters);
    this.parameters = parameters;
    this.width = parameters.width();
    this.depth = parameters.depth();
    this.counterMax = parameters.counterMax();
    this.conservative = parameters.conservativeUpdate();
    this.counters = counters;
    this.file = file;
    this.faults = file == null ? null
        : new SketchFileFaults(file.path(), file.channel(), file.bodyOffset() + file.header().bodyLength());
    this.totalWeight = totalWeight;
    this.calls = new CallGate("count-min sketch " + (file == null ? "(in memory)" : file.path().toString()));
  }

  /**
   * A sketch whose counters are heap arrays ({@code width * depth * counterBytes} bytes).
   *
   * @throws IllegalArgumentException if the counters need more than the heap's maximum size
   *     ({@link Runtime#maxMemory}): such a sketch can never be allocated; {@link #create} one in a file
   */
  public static CountMinSketch inMemory(SketchParameters parameters) {
    parameters = withoutPageSize(parameters);
    // Bounded by SketchParameters (at most Long.MAX_VALUE / 2 bytes): no overflow. Larger than the
    // heap, the chunk arrays were allocated one by one until the heap ran out (an OutOfMemoryError
    // that any other thread could meet first), or their count overflowed an int
    // (NegativeArraySizeException).
    long bytes = parameters.width() * parameters.depth() * parameters.counterBytes();
    HeapLimit.check(bytes, "an in-memory sketch of " + parameters.width() + " x " + parameters.depth() + " counters needs " + bytes
        + " bytes,", ": create it in a file");
    return new CountMinSketch(parameters,
        Counters.onHeap(parameters.width() * parameters.depth(), parameters.counterBytes()), null, 0);
  }

  /**
   * Creates a sketch of zero counters in the new file {@code path}, memory-mapped.
   *
   * @throws IllegalStateException if {@code path} exists
   * @throws java.io.UncheckedIOException if the file cannot be created
   */
  public static CountMinSketch create(Path path, SketchParameters parameters) {
    SketchFileHandle file = SketchFileHandle.create(path, SketchFile.Layout.ROWS, withoutPageSize(parameters));
    try {
      return mapped(file);
    } catch (RuntimeException e) {
      file.discardNewFile(e);
      throw e;
    }
  }

  /**
   * The parameters with the default page size: a plain sketch has no pages, and its file does not
   * record one, so its parameters read the same after a reopen.
   */
  private static SketchParameters withoutPageSize(SketchParameters parameters) {
    return parameters.withPageSize(SketchParameters.DEFAULT_PAGE_SIZE);
  }

  /**
   * Opens the sketch in {@code path}, written by {@link #create} and closed, after checking its
   * header and the checksum of all its counters (one sequential read of the file).
   *
   * @throws io.varve.core.format.CorruptStoreException if the file is damaged, truncated, foreign,
   *     a buffered sketch, of an unsupported version, or was not closed cleanly
   * @throws IllegalStateException if a sketch in this process or another has the file open
   * @throws java.io.UncheckedIOException if the file cannot be read; its cause is a {@link
   *     SketchCommitUnreadableException} when a commit slot could not be read (retry the open)
   */
  public static CountMinSketch open(Path path) {
    return mapped(SketchFileHandle.open(path, SketchFile.Layout.ROWS, true));
  }

  /**
   * Opens like {@link #open} but checks only the header and the file's length, not the counters'
   * checksum: for sketches too large to read whole at every start.
   */
  public static CountMinSketch openUnverified(Path path) {
    return mapped(SketchFileHandle.open(path, SketchFile.Layout.ROWS, false));
  }

  /**
   * Opens the sketch in {@code path} like {@link #open}, and also when its writer stopped before
   * {@code close()} or {@code flush()} (a kill, a crash, a power loss), which {@link #open} refuses.
   * Counters only grow, so each is at least its value at the file's last flush: estimates are at
   * least the counts of the updates before that flush, and updates after it may be counted in part.
   * {@link #totalWeight()} is that flush's. Such a file has no checksum to check its counters
   * against: its checksum is computed anew and the file marked closed (logged, WARNING).
   *
   * @throws io.varve.core.format.CorruptStoreException if the file is damaged (as far as its header
   *     and, for a cleanly closed file, its checksum tell), truncated, foreign or a buffered sketch
   * @throws IllegalStateException if a sketch in this process or another has the file open
   * @throws java.io.UncheckedIOException if the file cannot be read; its cause is a {@link
   *     SketchCommitUnreadableException} when a commit slot could not be read (retry the open)
   */
  public static CountMinSketch openAfterCrash(Path path) {
    return mapped(SketchFileHandle.open(path, SketchFile.Layout.ROWS, true, SketchFileHandle.Unclean.RECOVER));
  }

  private static CountMinSketch mapped(SketchFileHandle file) {
    SketchParameters parameters = file.header().parameters();
    try {
      Counters counters = Counters.mapped(file.channel(), file.bodyOffset(),
          parameters.width() * parameters.depth(), parameters.counterBytes());
      return new CountMinSketch(parameters, counters, file, file.header().totalWeight());
    } catch (RuntimeException e) {
      file.closeQuietly();
      throw e;
    }
  }

  @Override
  void updateHash(long itemHash, long weight) {
    if (file == null) {
      updateOpen(itemHash, weight);
      return;
    }
    calls.count(); // before the check, which close's wait pairs with
    try {
      updateOpen(itemHash, weight);
      // A faulted write in compiled code throws only at the thread's next call into the JVM's
      // runtime, which would be in the caller's code: made here, inside the catch.
      MappingFaults.deliverPending();
    } catch (InternalError fault) {
      throw fail(faults.fault(fault));
    } finally {
      calls.exit();
    }
  }

  private void updateOpen(long itemHash, long weight) {
    ensureOpen();
    Weights.check(weight);
    if (weight == 0) {
      return;
    }
    if (file != null) {
      file.beforeFirstChange();
    }
    totalWeight = Weights.add(totalWeight, weight, Long.MAX_VALUE);
    if (conservative) {
      long target = Weights.add(estimateOpen(itemHash), weight, counterMax);
      for (int row = 0; row < depth; row++) {
        long index = row * width + ItemHash.rowColumn(itemHash, row, width);
        if (counters.get(index) < target) {
          counters.set(index, target);
        }
      }
    } else {
      for (int row = 0; row < depth; row++) {
        long index = row * width + ItemHash.rowColumn(itemHash, row, width);
        counters.set(index, Weights.add(counters.get(index), weight, counterMax));
      }
    }
  }

  @Override
  long estimateHash(long itemHash) {
    if (file == null) {
      return estimateOpen(itemHash);
    }
    calls.count(); // before the check, which close's wait pairs with
    try {
      long estimate = estimateOpen(itemHash);
      // A faulted read in compiled code yields garbage and throws only at the thread's next call
      // into the JVM's runtime: made here, so that the garbage never leaves as an estimate.
      MappingFaults.deliverPending();
      return estimate;
    } catch (InternalError fault) {
      throw fail(faults.fault(fault));
    } finally {
      calls.exit();
    }
  }

  private long estimateOpen(long itemHash) {
    ensureOpen();
    long min = Long.MAX_VALUE;
    for (int row = 0; row < depth && min > 0; row++) {
      min = Math.min(min, counters.get(row * width + ItemHash.rowColumn(itemHash, row, width)));
    }
    return min;
  }

  /**
   * Adds {@code weight} to the count of each 64-bit item of {@code items}, in order: the counts of
   * {@link #update(long, long)} on each, with the same safety for less work on a file sketch, whose
   * every call ends with a call into the JVM's runtime (40 to 60 ns, most of a mapped call's cost
   * over one in memory) that makes a fault of its mapping throw inside the sketch: a batch pays it
   * once per {@value #BATCH} items.
   *
   * @throws IllegalArgumentException if {@code weight} is negative (nothing is counted)
   * @throws CorruptStoreException if the file was cut under the sketch, which then fails
   */
  public void updateAll(long[] items, long weight) {
    ensureOpen();
    Weights.check(weight);
    for (int from = 0; from < items.length; from += BATCH) {
      int to = Math.min(items.length, from + BATCH);
      if (file == null) {
        updateOpen(items, from, to, weight);
        continue;
      }
      calls.count(); // see updateHash
      try {
        updateOpen(items, from, to, weight);
        MappingFaults.deliverPending();
      } catch (InternalError fault) {
        throw fail(faults.fault(fault));
      } finally {
        calls.exit();
      }
    }
  }

  private void updateOpen(long[] items, int from, int to, long weight) {
    for (int i = from; i < to; i++) {
      updateOpen(hashOf(items[i]), weight);
    }
  }

  /**
   * Writes the {@link #estimate(long)} of each 64-bit item of {@code items} to {@code estimates} at
   * its index, paying the runtime call once per {@value #BATCH} items (see {@link #updateAll}).
   *
   * @throws IllegalArgumentException if {@code estimates} is shorter than {@code items}
   * @throws CorruptStoreException if the file was cut under the sketch, which then fails; the
   *     entries of {@code estimates} from the failing batch of items on are then no estimates (they
   *     may hold anything: reads of the cut mapping)
   */
  public void estimateAll(long[] items, long[] estimates) {
    ensureOpen();
    if (estimates.length < items.length) {
      throw new IllegalArgumentException("estimates has " + estimates.length + " entries for " + items.length + " items");
    }
    for (int from = 0; from < items.length; from += BATCH) {
      int to = Math.min(items.length, from + BATCH);
      if (file == null) {
        estimateOpen(items, estimates, from, to);
        continue;
      }
      calls.count(); // see updateHash
      try {
        estimateOpen(items, estimates, from, to);
        MappingFaults.deliverPending(); // see estimateHash
      } catch (InternalError fault) {
        throw fail(faults.fault(fault));
      } finally {
        calls.exit();
      }
    }
  }

  private void estimateOpen(long[] items, long[] estimates, int from, int to) {
    for (int i = from; i < to; i++) {
      estimates[i] = estimateOpen(hashOf(items[i]));
    }
  }

  /**
   * Items per guarded run of a batch: the runtime call's share is then about a nanosecond, and a
   * run on a file larger than RAM ({@code depth} page reads per item) stays well within what close
   * waits for calls ({@link CallGate#GIVE_UP_NANOS}).
   */
  private static final int BATCH = 64;

  /**
   * Adds every counter of {@code other} into this sketch: afterwards this sketch estimates the union
   * of both streams. Both must have equal parameters (including the seed).
   *
   * @throws IllegalArgumentException if the parameters differ
   * @throws CorruptStoreException if either sketch's file was cut under it; a merge that read a cut
   *     file fails this sketch too, as it holds part of the merge
   */
  public void merge(CountMinSketch other) {
    if (other == this) {
      ensureOpen();
      throw new IllegalArgumentException("cannot merge a sketch into itself");
    }
    // Both mappings are counted in use, so that a close of either on another thread leaves them
    // mapped until the merge is done (it crashed the JVM: CloseDuringMergeTest).
    calls.enter();
    try {
      other.calls.enter();
      try {
        mergeOpen(other);
        MappingFaults.deliverPending(); // see estimateHash
      } catch (InternalError fault) {
        throw mergeFault(other, fault);
      } finally {
        other.calls.exit();
      }
    } finally {
      calls.exit();
    }
  }

  private void mergeOpen(CountMinSketch other) {
    if (!parameters.equals(other.parameters)) {
      throw new IllegalArgumentException("cannot merge sketches with different parameters: " + parameters
          + " and " + other.parameters);
    }
    if (file != null) {
      file.beforeFirstChange();
    }
    long count = width * depth;
    for (long i = 0; i < count; i++) {
      long add = other.counters.get(i);
      if (add != 0) {
        counters.set(i, Weights.add(counters.get(i), add, counterMax));
      }
    }
    totalWeight = Weights.add(totalWeight, other.totalWeight, Long.MAX_VALUE);
  }

  /**
   * What a fault during a merge becomes. Which mapping faulted is not told: the sketches whose
   * files are now shorter. This sketch fails whichever did, since a merge from a cut file leaves
   * its counters holding part of it, made of faulted reads.
   */
  private RuntimeException mergeFault(CountMinSketch other, InternalError fault) {
    if (!MappingFaults.isUnsafeAccess(fault) || faults == null && other.faults == null) {
      throw fault;
    }
    boolean thisCut = faults != null && faults.fileShrank();
    boolean otherCut = other.faults != null && other.faults.fileShrank();
    if (!thisCut && !otherCut) {
      // Neither file is shorter: a write to this sketch's mapping that the file system could not take.
      return fail(faults != null ? faults.fault(fault) : other.faults.fault(fault));
    }
    CorruptStoreException otherDamage = otherCut ? other.fail(other.faults.truncated(fault)) : null;
    if (thisCut) {
      return fail(faults.truncated(fault));
    }
    return fail(new CorruptStoreException("count-min sketch " + describe() + " took part of a merge from a damaged sketch: "
        + otherDamage.getMessage(), otherDamage));
  }

  /**
   * Makes the file complete and durable: writes changed pages, then the header with the total weight
   * and the counters' checksum (one sequential read of the file). Nothing to do in memory.
   *
   * @throws CorruptStoreException if the file was cut under the sketch (which then fails)
   */
  @Override
  public void flush() {
    calls.enter(); // a close on another thread waits until the force and the header are written
    try {
      finishFile();
    } finally {
      calls.exit();
    }
  }

  private void finishFile() {
    if (file == null) {
      return;
    }
    if (faults.fileShrank()) {
      throw fail(faults.truncated(null));
    }
    try {
      finishChanges();
    } catch (RuntimeException e) {
      // Cut while finishing: the body's checksum pass, which reads the file, ended early.
      if (faults.fileShrank()) {
        throw fail(faults.truncated(e));
      }
      throw e;
    }
  }

  private void finishChanges() {
    if (file.changed()) {
      file.checkWritable();
      try {
        counters.force();
      } catch (UncheckedIOException e) {
        throw file.writeFailed("cannot force the counters of sketch file " + file.path(), e.getCause());
      }
      file.finish(totalWeight, null);
    }
  }

  /** The sum of all update weights (saturating at {@code Long.MAX_VALUE}). */
  @Override
  public long totalWeight() {
    ensureOpen();
    return totalWeight;
  }

  /**
   * The parameters this sketch was created with, but with the default page size: a plain sketch has
   * no pages.
   */
  @Override
  public SketchParameters parameters() {
    return parameters;
  }

  /** Bytes of all counters. */
  @Override
  public long sizeBytes() {
    return width * depth * parameters.counterBytes();
  }

  /** Heap bytes the counters take: all of {@link #sizeBytes()} in memory, none when mapped. */
  @Override
  public long ramBytesUsed() {
    ensureOpen();
    return counters.heapBytes();
  }

  /** The sketch's file, or {@code null} for an in-memory sketch. */
  public Path path() {
    return file == null ? null : file.path();
  }

  /**
   * Flushes a file sketch (see {@link #flush}), unmaps and closes it. Idempotent. A call racing
   * the close on another thread (which the contract forbids) is refused, or finishes before the
   * file is flushed and its mapping released; one still inside the sketch after a minute (a thread
   * stopped there), or an interrupt of the closing thread while it waits, leaves the file
   * unflushed, to be opened by {@link #openAfterCrash}, and its mapping to the collector.
   *
   * @throws java.io.UncheckedIOException if the file cannot be written; the mapping is released
   * @throws CorruptStoreException if the file was cut under the sketch: the file is left as it is,
   *     the mapping released
   * @throws IllegalStateException if a call on another thread was still inside the sketch
   */
  @Override
  public synchronized void close() { // one close at a time: a second waits, then finds it closed
    if (calls.closed()) {
      return;
    }
    boolean drained = calls.closeAndDrain(); // calls that count themselves from now on are refused
    try {
      if (!drained) {
        throw new IllegalStateException("count-min sketch " + (file == null ? "(in memory)" : file.path().toString())
            + " closed while a call on another thread was still inside it: its file is left unflushed"
            + " (see openAfterCrash)");
      }
      RuntimeException failed = calls.failure();
      if (failed != null) {
        throw CallGate.refusal(failed); // the counts are lost: nothing to write
      }
      finishFile();
    } finally {
      if (drained) {
        counters.release();
      } // else the collector unmaps it once the last call lets go
      if (file != null) {
        file.close();
      }
    }
  }

  private void ensureOpen() {
    calls.ensureOpen();
  }

  private String describe() {
    return file == null ? "(in memory)" : file.path().toString();
  }

  /** Fails the sketch with {@code damage}, unless it failed already; returns {@code damage}, for {@code throw}. */
  private <E extends RuntimeException> E fail(E damage) {
    return calls.fail(damage);
  }
}
