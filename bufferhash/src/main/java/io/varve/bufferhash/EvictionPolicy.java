package io.varve.bufferhash;

import java.util.Objects;
import java.util.function.BiPredicate;

/**
 * What happens to the entries of the oldest incarnation when the log needs its space
 * (BufferHash §5.1.2). Each policy is built on one of two primitives: <em>full discard</em> drops
 * the whole incarnation; <em>partial discard</em> reads it first and re-inserts into its super
 * table's buffer the entries the policy keeps.
 *
 * <p>Whatever the policy, an entry that a newer version or a delete has replaced is never kept,
 * and when the log holds too few dead entries the kept ones are bounded: entries re-inserted
 * while a flush makes room may fill buffers that are flushed in turn, but those flushes discard
 * in full, so live entries then go in FIFO order, as the paper says they must.
 *
 * <p>Immutable and thread-safe; a priority predicate must be thread-safe too.
 */
public final class EvictionPolicy {
  enum Kind {
    FIFO,
    LRU,
    UPDATE_BASED,
    PRIORITY
  }

  private static final EvictionPolicy FIFO = new EvictionPolicy(Kind.FIFO, null);
  private static final EvictionPolicy LRU = new EvictionPolicy(Kind.LRU, null);
  private static final EvictionPolicy UPDATE_BASED = new EvictionPolicy(Kind.UPDATE_BASED, null);

  private final Kind kind;
  private final BiPredicate<byte[], byte[]> keep;

  private EvictionPolicy(Kind kind, BiPredicate<byte[], byte[]> keep) {
    this.kind = kind;
    this.keep = keep;
  }

  /**
   * First in, first out (the default): the oldest incarnation is dropped whole. Costs nothing
   * beyond the flush: no read of the evicted incarnation, no re-insertion.
   */
  public static EvictionPolicy fifo() {
    return FIFO;
  }

  /**
   * Least recently used: an entry found on the SSD by {@link BufferHash#get} is re-inserted into
   * its buffer, so recently used entries live in recent incarnations; eviction is a full discard.
   * Costs a buffer insert per lookup answered from the SSD, and SSD space (an entry may be stored
   * in several incarnations until the older copies are evicted), hence more flushes.
   */
  public static EvictionPolicy lru() {
    return LRU;
  }

  /**
   * Update-based: partial discard that keeps every entry still current (neither updated nor
   * deleted since) and drops the rest. Costs a sequential read of each evicted incarnation, a
   * lookup of each of its entries among newer versions (usually answered by the Bloom filters
   * alone), and the flushes of the kept entries.
   */
  public static EvictionPolicy updateBased() {
    return UPDATE_BASED;
  }

  /**
   * Priority-based: partial discard that keeps each current entry for which {@code keep} returns
   * true at eviction time (the threshold may change over time). Costs as {@link #updateBased}
   * plus one call of {@code keep} per current entry. {@code keep} runs under the table's lock: it
   * must be quick and must not call back into the table (such a call throws {@link
   * IllegalStateException}). An entry for which it throws is not kept (the exception is logged,
   * WARNING).
   */
  public static EvictionPolicy priority(BiPredicate<byte[], byte[]> keep) {
    return new EvictionPolicy(Kind.PRIORITY, Objects.requireNonNull(keep, "keep"));
  }

  Kind kind() {
    return kind;
  }

  boolean partialDiscard() {
    return kind == Kind.UPDATE_BASED || kind == Kind.PRIORITY;
  }

  boolean reinsertOnUse() {
    return kind == Kind.LRU;
  }

  /**
   * Whether a current entry of an evicted incarnation is kept. A priority predicate is given
   * copies: the arrays are re-inserted as they are when it keeps them, and a predicate that changed
   * them (a key masked in place, say) filed the entry under its old hash with another key, which
   * the next open refused as damage ('an entry of another super table'), or kept another value.
   */
  boolean keeps(byte[] key, byte[] value) {
    return kind == Kind.UPDATE_BASED || (kind == Kind.PRIORITY && keep.test(key.clone(), value.clone()));
  }

  @Override
  public String toString() {
    return kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
