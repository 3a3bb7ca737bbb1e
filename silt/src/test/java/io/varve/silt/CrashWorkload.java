package io.varve.silt;

import static org.junit.jupiter.api.Assertions.fail;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;

/**
 * A random workload of puts, deletes, syncs, freezes, conversions and merges over a small key set,
 * on a store with tiny log stores so that every tier turns over often, kept in a {@link
 * SyncedModel}; and the check of a crashed copy against it. Deterministic for a seed while
 * background work is off. Not thread-safe.
 */
final class CrashWorkload {
  /** Log stores of 16 slots and 4 KiB, a merge per two hash stores; work runs when the test asks. */
  static final SiltOptions OPTIONS =
      SiltOptions.builder().logStoreEntries(16).maxLogBytes(4096).hashStoresPerMerge(2).backgroundMerges(false).mergeMemoryBudget(2 << 20).build();
  /** The same, converted and merged on the background threads. */
  static final SiltOptions BACKGROUND = OPTIONS.toBuilder().backgroundMerges(true).build();

  final long seed;
  final Random random;
  final List<byte[]> keys = new ArrayList<>();
  final SyncedModel model = new SyncedModel();
  private final int maxValue;
  private final double syncShare;
  private final double freezeShare;
  /** What the last step did, for messages. */
  String last = "nothing";

  CrashWorkload(long seed, int keyCount) {
    this(seed, keyCount, 48, 0.11, 0.05);
  }

  /** Values of up to {@code maxValue} bytes; {@code syncShare} of the operations are syncs, {@code freezeShare} freezes. */
  CrashWorkload(long seed, int keyCount, int maxValue, double syncShare, double freezeShare) {
    this.seed = seed;
    this.maxValue = maxValue;
    this.syncShare = syncShare;
    this.freezeShare = freezeShare;
    this.random = new Random(seed);
    for (int i = 0; i < keyCount; i++) {
      keys.add(("key-" + i + "-" + "x".repeat(random.nextInt(12))).getBytes(StandardCharsets.UTF_8));
    }
  }

  /**
   * One random operation. A conversion or merge that fails is left for later (the store takes
   * writes still); a write, sync or freeze that fails throws, and the store takes no more.
   */
  void step(SiltStore store, boolean foregroundWork) throws IOException {
    double r = random.nextDouble();
    byte[] key = keys.get(random.nextInt(keys.size()));
    if (r < 0.55) {
      byte[] value = new byte[random.nextInt(maxValue)];
      random.nextBytes(value);
      last = "a put";
      model.write(key, value);
      store.put(key, value);
    } else if (r < 0.75) {
      last = "a delete";
      model.write(key, null);
      store.delete(key);
    } else if (r < 0.75 + syncShare) {
      last = "a sync";
      store.sync();
      model.acknowledge();
    } else if (r < 0.75 + syncShare + freezeShare) {
      last = "a freeze";
      store.freezeLog();
    } else if (foregroundWork) {
      boolean merge = r > 0.96;
      last = merge ? "a merge" : "a conversion";
      try {
        if (merge) {
          store.mergeNow();
        } else {
          store.convertNow();
        }
      } catch (IOException e) {
        last += " (failed: " + e + ")";
      }
    }
  }

  /**
   * Opens the crashed copy {@code dir} and checks every key against the model: each reads as its
   * durable value or one written since.
   */
  void check(Path dir, SiltOptions options, String context) throws IOException {
    check(open(dir, options, context), context);
  }

  /**
   * As {@link #check}, but the store may refuse to open with a {@link CorruptStoreException} that
   * {@code allowed} accepts. Returns whether it opened.
   */
  boolean checkUnlessRefused(Path dir, SiltOptions options, String context, Predicate<CorruptStoreException> allowed)
      throws IOException {
    SiltStore store;
    try {
      store = SiltStore.open(dir, options);
    } catch (CorruptStoreException e) {
      if (allowed.test(e)) {
        return false;
      }
      throw new AssertionError(context + ": the crashed store does not open: " + e, e);
    }
    check(store, context);
    return true;
  }

  private void check(SiltStore opened, String context) {
    try (SiltStore store = opened) {
      for (byte[] key : keys) {
        String wrong = model.check(key, store.get(key));
        if (wrong != null) {
          fail(context + ": key " + new String(key, StandardCharsets.UTF_8) + ": " + wrong);
        }
      }
    }
  }

  static SiltStore open(Path dir, SiltOptions options, String context) throws IOException {
    try {
      return SiltStore.open(dir, options);
    } catch (CorruptStoreException | UncheckedIOException | IllegalArgumentException e) {
      throw new AssertionError(context + ": the crashed store does not open: " + e, e);
    }
  }
}
