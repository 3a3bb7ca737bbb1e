package io.varve.bcms;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The life of a {@link CountMinSketch}, and the calls inside its file's mapping: open, failed (its
 * file cut under it, a write through the mapping lost) or closed. A call counts itself in, then
 * checks that the sketch is neither closed nor failed, in this order, which {@link #closeAndDrain}
 * pairs with: once it has set {@code closed}, a call that counts itself later is refused, and one
 * that counted itself earlier finishes before the mapping is released. The refusals of a failed
 * sketch share the check with that order, so failure and close live here together.
 *
 * <p>Thread-safe.
 */
final class CallGate {
  /**
   * How long a close waits for calls inside the mapping: a merge of a large sketch into a new
   * file's mapping (page faults, a first force) took over a second on a loaded machine, and a close
   * that gave up then left the file unflushed; only a thread stopped inside a call waits this long.
   */
  static final long GIVE_UP_NANOS = 60_000_000_000L;
  /** How long a close spins before it sleeps between looks: most calls end within microseconds. */
  private static final long SPIN_NANOS = 1_000_000L;
  private static final VarHandle FAILURE;
  private static final VarHandle IN_FLIGHT;

  static {
    try {
      FAILURE = MethodHandles.lookup().findVarHandle(CallGate.class, "failure", RuntimeException.class);
      IN_FLIGHT = MethodHandles.lookup().findVarHandle(CallGate.class, "inFlight", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** What refusals call the sketch: "count-min sketch" and its file. */
  private final String name;
  private final long giveUpNanos;
  /**
   * Calls reading or writing a file sketch's mapping now: close unmaps only once none is left, so
   * that a call on another thread (which the contract forbids, and which crashed the JVM when the
   * mapping went under it: CloseUnderLoadTest) is refused or finishes first. A field of the gate,
   * changed through {@link #IN_FLIGHT}, rather than an AtomicInteger: the hot path loads no more
   * objects than when these fields were the sketch's own.
   */
  private volatile int inFlight;
  private volatile boolean closed;
  /**
   * Why the sketch failed (its file cut under it: {@link CorruptStoreException}; a write through
   * the mapping lost: {@link UncheckedIOException}), or null; set once, through {@link #FAILURE}.
   */
  private volatile RuntimeException failure;
  /**
   * False once {@code closed} or {@code failure} is set (written after them): the one field a call
   * checks, so that the hot path reads no more than when the sketch held these fields itself.
   */
  private volatile boolean open = true;

  CallGate(String name) {
    this(name, GIVE_UP_NANOS);
  }

  /** A gate whose close gives up after {@code giveUpNanos}: for tests of a call that never ends. */
  CallGate(String name, long giveUpNanos) {
    this.name = name;
    this.giveUpNanos = giveUpNanos;
  }

  /**
   * Counts a call as inside the mapping, then checks that the sketch is open; the caller calls
   * {@link #exit} when done (not when this throws: the call is then counted out already).
   */
  void enter() {
    IN_FLIGHT.getAndAdd(this, 1);
    if (!open) {
      IN_FLIGHT.getAndAdd(this, -1);
      refuse();
    }
  }

  /**
   * Counts a call as inside the mapping without the check, which the call makes itself (through
   * {@link #ensureOpen}) after this: the update and estimate path's {@link #enter}.
   */
  void count() {
    IN_FLIGHT.getAndAdd(this, 1);
  }

  /** The end of a call counted by {@link #enter} or {@link #count}. */
  void exit() {
    IN_FLIGHT.getAndAdd(this, -1);
  }

  /** Throws if the sketch is closed, or its failure anew if it failed. */
  void ensureOpen() {
    if (!open) {
      refuse();
    }
  }

  /** The refusal of a call that found the gate shut: {@code open} is false only after one of these is set. */
  private void refuse() {
    if (closed) {
      throw new IllegalStateException(name + " is closed");
    }
    RuntimeException failed = failure;
    if (failed != null) {
      throw refusal(failed);
    }
  }

  boolean closed() {
    return closed;
  }

  /** Why the sketch failed, or null. */
  RuntimeException failure() {
    return failure;
  }

  /**
   * Marks the sketch closed, then waits until no call is inside the mapping: each call counts
   * itself before it checks {@code closed}, so one that counted later is refused. Gives up after
   * {@link #GIVE_UP_NANOS} (a thread stopped inside a call): false, and the mapping must then not be
   * released. Spins for a millisecond, then sleeps a millisecond between looks.
   */
  boolean closeAndDrain() {
    closed = true;
    open = false; // before inFlight is read: a call that counts itself after the read sees it
    long start = System.nanoTime();
    while (inFlight != 0) {
      long waited = System.nanoTime() - start;
      if (waited > giveUpNanos) {
        return false;
      }
      if (waited < SPIN_NANOS) {
        Thread.onSpinWait();
      } else {
        try {
          Thread.sleep(1);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false; // an interrupted close leaves the mapping as a stopped call does
        }
      }
    }
    return true;
  }

  /** Fails the sketch with {@code damage}, unless it failed already; returns {@code damage}, for {@code throw}. */
  <E extends RuntimeException> E fail(E damage) {
    // Not synchronized: close holds the sketch's monitor while it waits for the call that fails here.
    FAILURE.compareAndSet(this, null, damage);
    open = false;
    return damage;
  }

  /** A later call's refusal: the failure, of its type, thrown anew so that its trace shows the call. */
  static RuntimeException refusal(RuntimeException failed) {
    if (failed instanceof UncheckedIOException) {
      return new UncheckedIOException(failed.getMessage(), new IOException(failed.getMessage(), failed));
    }
    return new CorruptStoreException(failed.getMessage(), failed);
  }
}
