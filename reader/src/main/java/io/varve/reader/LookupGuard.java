package io.varve.reader;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Counts the lookups in flight on one store, exactly, so that {@link #close()} returns only when
 * none is left and the records can be unmapped or freed without a reader touching them.
 *
 * <p>Each lookup adds one to a slot chosen by its thread on {@link #enter(int)} and takes it away
 * from the same slot on {@link #exit(int)}, so no slot ever holds less than the lookups inside it.
 * A lookup enters by adding its one, then reading the state; close sets the state, then reads
 * the slots: with both done as volatile accesses, either the lookup sees the state and is refused
 * (its {@code finally} takes its one back), or close sees its one and waits. A slot read as zero
 * after the state is set therefore holds no lookup that entered before it. (A {@code LongAdder}, used before, is not exact: its sum is not a
 * snapshot, and a thread that backs out after the close may land its +1 and -1 in different cells,
 * so that a sum taken meanwhile cancels a real reader's +1. That let close unmap under a reader.)
 *
 * <p>A guard starts with one counter, {@code base}. The first time two lookups collide on it (its
 * compare-and-set fails) it spreads: later lookups count in stripes, slots a cache line pair apart,
 * chosen by thread id. The stripes are sized to the contention seen: two slots first, twice as many
 * each time two lookups collide on a slot of the newest stripes, up to eight per processor. Either
 * way a lookup costs two uncontended atomic operations. Stripes for every guard from the open on
 * took {@code 128 * 8 * processors} bytes per store (64 KiB on 64 cores), and so did a store that
 * two threads read at once, once they collided; a guard now holds the stripes that separate the
 * threads that read it at the same instant (two threads of consecutive ids: two slots, 384 bytes
 * with their padding), and at most twice the old full set. A lookup exits from the counter it entered: {@code base}, or
 * its slot of the stripes it saw, since stripes are never dropped (each keeps the ones before it).
 * Close reads {@code base}, then every stripes' slots: a lookup that saw stripes made them visible
 * before it read the state, so a close that set the state first sees them.
 *
 * <p>A store whose records became unreadable (its data file truncated under the mapping) is
 * {@link #fail failed}: lookups are then refused with the failure, without touching the records
 * again. Thread-safe.
 */
final class LookupGuard {
  /** Longs between slots: 128 bytes, so that adjacent-line prefetching does not couple them. */
  private static final int STRIDE = 16;
  /** Busy-waits of close before it starts to sleep between looks. */
  private static final int SPINS = 1 << 10;
  private static final long SLEEP_NANOS = 50_000;
  /** How long close waits on counts that may be broken before it gives up (lookups take microseconds). */
  static final long GIVE_UP_NANOS = 1_000_000_000L;

  /** The slot of a lookup counted in {@link #base}. */
  static final int BASE = -1;
  /** A slot is its stripes' level above this bit, its index (times {@link #STRIDE}) below. */
  private static final int LEVEL_SHIFT = 26;
  private static final int INDEX_MASK = (1 << LEVEL_SHIFT) - 1;
  private static final VarHandle BASE_COUNT;
  private static final VarHandle STRIPES;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      BASE_COUNT = lookup.findVarHandle(LookupGuard.class, "base", long.class);
      STRIPES = lookup.findVarHandle(LookupGuard.class, "stripes", Stripes.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The lookups in flight that were counted before the guard spread (all of them, until it does). */
  private volatile long base;
  /** Null until two lookups collided on {@link #base}; then the newest stripes, which keep the older ones. */
  private volatile Stripes stripes;
  /** The most slots stripes grow to. */
  private final int stripeSlots;
  private final String name;
  /** {@link #OPEN}, {@link #FAILED} or {@link #CLOSED}: one volatile read per lookup tells all. */
  private volatile int state;
  /** Why the guard failed; written before {@code state} becomes {@link #FAILED}. */
  private volatile RuntimeException failure;

  private static final int OPEN = 0;
  private static final int FAILED = 1;
  private static final int CLOSED = 2;

  /** A guard for the store named {@code name} (in the exception of a call after close). */
  LookupGuard(String name) {
    this(name, Runtime.getRuntime().availableProcessors());
  }

  LookupGuard(String name, int processors) {
    int slots = Integer.highestOneBit(Math.max(2, 8 * processors) - 1) << 1;
    this.stripeSlots = Math.min(slots, 1 << (LEVEL_SHIFT - 4));
    this.name = name;
  }

  /** The calling thread's slot, for {@link #enter(int)} and {@link #exit(int)}: {@link #BASE} until the guard spread. */
  int slot() {
    Stripes newest = stripes;
    // Thread ids are handed out in sequence, so the threads of a pool get slots of their own (a
    // hash of the thread put two of two threads in one slot in one run out of eight).
    return newest == null ? BASE : newest.tag | ((int) (Thread.currentThread().getId() & newest.mask) + 1) * STRIDE;
  }

  /**
   * Starts a lookup in {@code slot}. Call it first thing inside the {@code try} whose {@code
   * finally} calls {@link #exit(int)}: the lookup is counted before anything else can happen, so
   * that the exit balances it even when it throws, or when the JVM delivers an error for an
   * earlier read right after (a fault of a truncated mapping arrives at the thread's next check).
   * Counted before, outside the {@code try}, such an error left the count up, and {@link #close()}
   * waited for it forever.
   *
   * @throws StoreClosedException when {@link #close()} has begun (the lookup is counted all the same)
   * @throws io.varve.core.format.CorruptStoreException when the guard {@link #fail failed} (likewise)
   */
  void enter(int slot) {
    if (slot == BASE) {
      enterBase();
    } else {
      enterStripe(slot);
    }
    if (state != OPEN) {
      throw refusal();
    }
  }

  private void enterBase() {
    long count = base;
    if (!BASE_COUNT.compareAndSet(this, count, count + 1)) {
      // Another thread's lookup came in between: count this one all the same, then let later
      // lookups spread over stripes, so that threads stop taking the line from each other.
      BASE_COUNT.getAndAdd(this, 1L);
      spread();
    }
  }

  private void enterStripe(int slot) {
    Stripes at = stripesOf(slot);
    int index = slot & INDEX_MASK;
    long count = at.counts.get(index);
    if (!at.counts.compareAndSet(index, count, count + 1)) {
      // Two threads share this slot: count this lookup all the same, and let later ones spread
      // over twice the slots.
      at.counts.getAndIncrement(index);
      grow(at);
    }
  }

  /** The stripes {@code slot} lies in: the newest, or one they keep (a slot is used until its lookup exits). */
  private Stripes stripesOf(int slot) {
    int level = slot >>> LEVEL_SHIFT;
    Stripes at = stripes; // non-null: slot() saw stripes, and they are never dropped
    while (at.level != level) {
      at = at.previous;
    }
    return at;
  }

  /**
   * Makes later lookups count in stripes. Not synchronized: a close holds the monitor while it
   * waits for the very lookup that may call this.
   */
  void spread() {
    if (stripes == null) {
      STRIPES.compareAndSet(this, null, new Stripes(0, Math.min(2, stripeSlots), null));
    }
  }

  /** Doubles the slots of later lookups after a collision on {@code collided}, unless newer stripes or the most slots are there already. */
  private void grow(Stripes collided) {
    if (stripes == collided && collided.slots() < stripeSlots) {
      STRIPES.compareAndSet(this, collided, new Stripes(collided.level + 1, collided.slots() * 2, collided));
    }
  }

  private RuntimeException refusal() {
    if (state == CLOSED) {
      return new StoreClosedException(name);
    }
    return new io.varve.core.format.CorruptStoreException(failure.getMessage(), failure);
  }

  /**
   * Refuses every later lookup with {@code cause}'s message (lookups in flight finish as they
   * can). Does nothing once closed or failed.
   */
  synchronized void fail(RuntimeException cause) {
    if (state == OPEN) {
      failure = cause;
      state = FAILED;
    }
  }

  /** Ends a lookup that {@link #enter(int)} counted in {@code slot}. */
  void exit(int slot) {
    if (slot == BASE) {
      BASE_COUNT.getAndAdd(this, -1L);
    } else {
      stripesOf(slot).counts.getAndDecrement(slot & INDEX_MASK);
    }
  }

  /**
   * Throws {@link StoreClosedException} when {@link #close()} has begun; for calls that read
   * nothing the close frees (a racing close may still begin right after).
   */
  void checkOpen() {
    if (state == CLOSED) {
      throw new StoreClosedException(name);
    }
  }

  /** Why the guard {@link #fail failed}, or null if it never did (kept after {@link #close()}). */
  RuntimeException failure() {
    return failure;
  }

  /** Whether {@link #close()} has begun. */
  boolean isClosed() {
    return state == CLOSED;
  }

  /** What {@link #close(BooleanSupplier)} did. */
  enum Closing {
    /** This call closed the guard, and no lookup is in flight: the records may be freed. */
    DRAINED,
    /** The guard was closed before. */
    ALREADY_CLOSED,
    /** This call closed the guard but gave up waiting on counts that no lookup will take back: keep the records. */
    ABANDONED
  }

  /**
   * Refuses new lookups and waits until every lookup in flight has ended. Returns true for the
   * call that closed the guard, false when it was closed already (a concurrent second call waits
   * for the first to finish).
   */
  boolean close() {
    return close(() -> false) == Closing.DRAINED;
  }

  /**
   * As {@link #close()}, but gives up waiting once the counts have not drained for {@link
   * #GIVE_UP_NANOS} and {@code countsBroken} says they can no longer be trusted. The JVM delivers
   * the fault of a read from a mapping whose file was truncated at the reader's next check, which
   * may fall inside {@link #exit} before its decrement (or inside {@link #enter} before its
   * increment): a count that no lookup will take back, on which a plain close would wait forever.
   * The caller must then leave the records mapped, since a count it cannot trust may still hide a
   * reader.
   */
  synchronized Closing close(BooleanSupplier countsBroken) {
    if (state == CLOSED) {
      return Closing.ALREADY_CLOSED;
    }
    state = CLOSED;
    Waiting waiting = new Waiting(countsBroken);
    while (base != 0) {
      if (waiting.gaveUp()) {
        return Closing.ABANDONED;
      }
    }
    for (Stripes at = stripes; at != null; at = at.previous) { // read after base: see the class comment
      for (int slot = STRIDE; slot < at.counts.length(); slot += STRIDE) {
        while (at.counts.get(slot) != 0) {
          if (waiting.gaveUp()) {
            return Closing.ABANDONED;
          }
        }
      }
    }
    return Closing.DRAINED;
  }

  /** How close waits on a count: spins, then sleeps, and gives up on counts that may be broken. */
  private static final class Waiting {
    private final BooleanSupplier countsBroken;
    private int looks;
    private long waitingSince;

    Waiting(BooleanSupplier countsBroken) {
      this.countsBroken = countsBroken;
    }

    /** Waits a little; true when close should give up. */
    boolean gaveUp() {
      if (looks++ < SPINS) {
        Thread.onSpinWait();
        return false;
      }
      // A getAll over many keys may run for milliseconds: do not burn a core waiting for it.
      LockSupport.parkNanos(SLEEP_NANOS);
      long now = System.nanoTime();
      if (waitingSince == 0) {
        waitingSince = now;
        return false;
      }
      return now - waitingSince > GIVE_UP_NANOS && countsBroken.getAsBoolean();
    }
  }

  /**
   * The heap bytes of the counts: {@link #base}, and once the guard spread, 128 bytes a slot and
   * 128 more of padding for each size of stripes.
   */
  long ramBytesUsed() {
    long bytes = Long.BYTES;
    for (Stripes at = stripes; at != null; at = at.previous) {
      bytes += (long) at.counts.length() * Long.BYTES;
    }
    return bytes;
  }

  /** Whether lookups count in stripes (two collided on {@link #base}); for tests. */
  boolean isSpread() {
    return stripes != null;
  }

  /** The slots of the newest stripes (0 before the guard spread); for tests. */
  int stripeSlots() {
    Stripes newest = stripes;
    return newest == null ? 0 : newest.slots();
  }

  /** The lookups in flight now (a moment's count, for tests and diagnostics). */
  long inFlight() {
    long sum = base;
    for (Stripes at = stripes; at != null; at = at.previous) {
      for (int slot = STRIDE; slot < at.counts.length(); slot += STRIDE) {
        sum += at.counts.get(slot);
      }
    }
    return sum;
  }

  /** One size of stripes, and the smaller ones before it, which lookups that entered there exit from. */
  private static final class Stripes {
    final int level;
    /** The level above {@link #LEVEL_SHIFT}, in each slot of these stripes. */
    final int tag;
    final int mask;
    final AtomicLongArray counts;
    final Stripes previous;

    Stripes(int level, int slots, Stripes previous) {
      this.level = level;
      this.tag = level << LEVEL_SHIFT;
      this.mask = slots - 1;
      // Slot i at (i + 1) * STRIDE: the first is a stride away from the array's header (its length,
      // which every access reads) and the objects before it, the last a stride from the objects
      // after it. At offset 0, the slot that two threads' first stripes give one of them shared a
      // line with what the other reads: 8 % more CPU per lookup on two threads (a CPU-time harness).
      this.counts = new AtomicLongArray((slots + 1) * STRIDE);
      this.previous = previous;
    }

    int slots() {
      return mask + 1;
    }
  }
}
