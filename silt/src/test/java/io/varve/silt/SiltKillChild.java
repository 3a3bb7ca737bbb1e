package io.varve.silt;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;

/**
 * The child JVM of {@link SiltKillTest}: applies operations {@code start}, {@code start + 1}, ...
 * of the sequence {@link #key}/{@link #value} define for a seed, until killed, with small log
 * stores and background merges, so that freezes and merges run all the time; after every few
 * operations it syncs and prints {@code synced N merges M}: operations {@code 0 .. N - 1} are
 * durable.
 */
public final class SiltKillChild {
  private SiltKillChild() {}

  static final int KEYS = 2000;

  static SiltOptions options(boolean backgroundMerges) {
    return SiltOptions.builder().logStoreEntries(256).maxLogBytes(128 << 10).hashStoresPerMerge(2).backgroundMerges(backgroundMerges).build();
  }

  /** A 64-bit mix of the seed and the operation's number (SplitMix64's finalizer). */
  static long mix(long seed, long op) {
    long z = seed + (op + 1) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** The key operation {@code op} writes, as a number below {@link #KEYS}. */
  static int keyOf(long seed, long op) {
    return (int) Long.remainderUnsigned(mix(seed, op), KEYS);
  }

  static byte[] key(int k) {
    return ("silt-kill-" + k).getBytes(StandardCharsets.UTF_8);
  }

  /** The value operation {@code op} puts, or null when it is a delete (one in five). */
  static byte[] value(long seed, long op) {
    long m = mix(seed ^ 0x5EED, op);
    if (Long.remainderUnsigned(m, 5) == 0) {
      return null;
    }
    int extra = Long.remainderUnsigned(m >>> 8, 100) == 0 ? 3000 : (int) Long.remainderUnsigned(m >>> 16, 48);
    ByteBuffer b = ByteBuffer.allocate(8 + extra).putLong(op);
    new Random(m).ints(extra).forEach(i -> b.put((byte) i));
    return b.array();
  }

  /** args: directory, seed, the first operation, the seed of the sync gaps. */
  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long seed = Long.parseLong(args[1]);
    long start = Long.parseLong(args[2]);
    Random gaps = new Random(Long.parseLong(args[3]));
    try (SiltStore store = SiltStore.open(dir, options(true))) {
      System.out.println("opened at " + start);
      System.out.flush();
      int untilSync = 1 + gaps.nextInt(SiltKillTest.MAX_SYNC_GAP);
      for (long op = start; ; op++) {
        byte[] key = key(keyOf(seed, op));
        byte[] value = value(seed, op);
        if (value == null) {
          store.delete(key);
        } else {
          store.put(key, value);
        }
        if (--untilSync == 0) {
          store.sync();
          System.out.println("synced " + (op + 1) + " merges " + store.stats().merges());
          System.out.flush();
          untilSync = 1 + gaps.nextInt(SiltKillTest.MAX_SYNC_GAP);
          if (store.mergeFailure() != null) {
            store.mergeFailure().printStackTrace(System.out);
            System.out.flush();
            System.exit(3);
          }
        }
      }
    }
  }
}
