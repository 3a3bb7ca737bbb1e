package io.varve.core.files;

import io.varve.core.format.CorruptStoreException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A small record rewritten in place, kept safe from torn writes by two slots a page apart that it
 * alternates between: a sync mark, which says how far a log is durable. A slot's bytes are its
 * {@link Codec}'s; the file is:
 *
 * <pre>
 * file := Slot zeros Slot     (slot s at s × 4096: a write torn within a page or a sector spoils one slot)
 * Slot := slotBytes bytes     (the codec's: a generation among them, and a check that tells a valid slot)
 * </pre>
 *
 * One slot is durable (forced, valid), the other is scratch: each record goes to the scratch slot
 * with the next generation, unforced, and the file is forced at most every {@link
 * #FORCE_INTERVAL_NANOS} (and by {@link #force}, which owners call at close), the scratch slot then
 * becoming the durable one. So a record costs a small write, not a second force; a write in flight
 * never touches the durable slot, so a power loss leaves a valid slot however it tears the other;
 * and the newest valid slot answers. A killed process loses no record (the kernel holds the
 * write); a power loss may lose those since the last force.
 *
 * <p>Not thread-safe: its owner writes it under a lock of its own.
 *
 * @param <T> what a slot holds besides its generation: equal values are not written again
 */
public final class AlternatingSlots<T> implements Closeable {
  /** A page apart: a write torn within a page or a sector damages one slot only. */
  public static final int SLOT_SPACING = 4096;

  /** The longest a record stays unforced (unless no other comes): what a power loss may take of it. */
  public static final long FORCE_INTERVAL_NANOS = 1_000_000_000L;

  /** A slot's byte layout. Implementations are stateless. */
  public interface Codec<T> {
    /** The bytes of a slot. */
    int slotBytes();

    /** Writes {@code value} of {@code generation} into {@code slot}, {@link #slotBytes} zeros, its check included. */
    void encode(long generation, T value, byte[] slot);

    /** The slot's generation and value, or null when it holds none (torn, never written, damaged, another file's). */
    Slot<T> decode(byte[] slot);
  }

  /** A valid slot's content. */
  public record Slot<T>(long generation, T value) {}

  private final InterruptSafeFile channel;
  private final Codec<T> codec;
  private final byte[] slotBytes;
  private Slot<T> last;
  /** The slot the next record goes to; the other one is forced and valid. */
  private int scratch;
  /** Whether the scratch slot was written since the last force. */
  private boolean unforced;
  private long forcedAt = System.nanoTime();

  private AlternatingSlots(InterruptSafeFile channel, Codec<T> codec, Slot<T> last, int durable) {
    this.channel = channel;
    this.codec = codec;
    this.slotBytes = new byte[codec.slotBytes()];
    this.last = last;
    this.scratch = 1 - durable;
  }

  /** The length of a file of {@code codec}'s slots. */
  public static int fileBytes(Codec<?> codec) {
    return SLOT_SPACING + codec.slotBytes();
  }

  /**
   * Writes both slots of the new, empty file {@code channel} with {@code initial} (generations 0
   * and 1), forces it, and returns it, open.
   */
  public static <T> AlternatingSlots<T> create(InterruptSafeFile channel, Codec<T> codec, T initial) throws IOException {
    AlternatingSlots<T> slots = new AlternatingSlots<>(channel, codec, null, 1);
    slots.put(new Slot<>(0, Objects.requireNonNull(initial, "initial")), 0);
    slots.put(new Slot<>(1, initial), 1);
    channel.force(true);
    return slots;
  }

  /**
   * Reads the file {@code channel}, taking its valid slot of the highest generation, and forces
   * it: the slot read may be a write a killed process left unforced, and the next record goes to
   * the other slot. The channel stays the caller's to close if this throws.
   *
   * @param name what the file is, in messages: "sync mark"
   * @param whyNeither what the message of neither slot valid adds (" (damaged, or another table's)")
   * @throws CorruptStoreException if the file has another length, or neither slot is valid
   */
  public static <T> AlternatingSlots<T> open(InterruptSafeFile channel, Codec<T> codec, String name, String whyNeither)
      throws IOException {
    long size = channel.size();
    int fileBytes = fileBytes(codec);
    CorruptStoreException.check(size == fileBytes, channel.file() + ": a " + name + " of " + size + " bytes, not " + fileBytes);
    Slot<T> best = null;
    int bestSlot = 0;
    for (int s = 0; s < 2; s++) {
      ByteBuffer b = ByteBuffer.allocate(codec.slotBytes());
      channel.readFully(b, (long) s * SLOT_SPACING);
      Slot<T> slot = codec.decode(b.array());
      if (slot != null && (best == null || slot.generation() > best.generation())) {
        best = slot;
        bestSlot = s;
      }
    }
    CorruptStoreException.check(best != null, channel.file() + ": neither slot of the " + name + " is valid" + whyNeither);
    channel.force(false);
    return new AlternatingSlots<>(channel, codec, best, bestSlot);
  }

  /** The newest valid slot. */
  public Slot<T> last() {
    return last;
  }

  /**
   * Writes {@code value} to the scratch slot with the next generation, and forces the file if the
   * last force is {@link #FORCE_INTERVAL_NANOS} old; nothing is written when the newest slot holds
   * an equal value.
   */
  public void record(T value) throws IOException {
    if (last.value().equals(value)) {
      return;
    }
    put(new Slot<>(last.generation() + 1, value), scratch);
    unforced = true;
    if (System.nanoTime() - forcedAt >= FORCE_INTERVAL_NANOS) {
      force();
    }
  }

  /** Forces the scratch slot, if written since the last force; it becomes the durable one. */
  public void force() throws IOException {
    if (unforced) {
      channel.force(false); // the length never changes: no metadata to force
      unforced = false;
      scratch = 1 - scratch;
    }
    forcedAt = System.nanoTime();
  }

  private void put(Slot<T> slot, int into) throws IOException {
    Arrays.fill(slotBytes, (byte) 0);
    codec.encode(slot.generation(), slot.value(), slotBytes);
    channel.writeFully(ByteBuffer.wrap(slotBytes), (long) into * SLOT_SPACING);
    last = slot;
  }

  /** Closes the file, unforced records included (a killed process loses none of them). */
  @Override
  public void close() throws IOException {
    channel.close();
  }
}
