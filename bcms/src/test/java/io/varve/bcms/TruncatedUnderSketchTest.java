package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.files.InterruptSafeFile;
import io.varve.core.files.MappingFaults;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A plain file sketch whose file another process truncates while the sketch has it mapped. An
 * access to a mapped page the file no longer holds makes the JVM raise an {@link InternalError},
 * in compiled code possibly late, after the sketch's method returned. Before, that error reached
 * the caller (a serving process must never see it); now every operation refuses with a {@link
 * CorruptStoreException} naming the file, and every later one too, with nothing delivered late.
 */
class TruncatedUnderSketchTest {
  private static final long SEED = 0x7A0C_5EEDL;
  private static final long WIDTH = 1 << 14;
  private static final int DEPTH = 4;
  /** Pages of the body left after the cut: most counters lie past it. */
  private static final int PAGES_KEPT = 8;
  private static final int ITEMS = 4_096;

  @TempDir Path dir;

  /** What runs in a hot loop over the truncated file. */
  enum Operation {
    UPDATE_LONG,
    UPDATE_BYTES,
    CONSERVATIVE_UPDATE,
    ESTIMATE_LONG,
    ESTIMATE_BYTES,
    /** {@link CountMinSketch#updateAll} of a batch of {@link #BATCH} items from item {@code i} on. */
    UPDATE_ALL,
    /** {@link CountMinSketch#estimateAll} of such a batch; the first estimate is checked. */
    ESTIMATE_ALL,
    /** The truncated sketch takes a merge from an intact one. */
    MERGE_INTO_TRUNCATED,
    /** An intact sketch takes a merge from the truncated one, whose mapping it reads. */
    MERGE_FROM_TRUNCATED;

    boolean merges() {
      return this == MERGE_INTO_TRUNCATED || this == MERGE_FROM_TRUNCATED;
    }

    /** Runs once on item {@code i}; returns an estimate, or 0. */
    long apply(CountMinSketch truncated, CountMinSketch partner, long item, byte[] itemBytes) {
      switch (this) {
        case UPDATE_LONG, CONSERVATIVE_UPDATE -> truncated.update(item, 1);
        case UPDATE_BYTES -> truncated.update(itemBytes, 1);
        case ESTIMATE_LONG -> {
          return truncated.estimate(item);
        }
        case ESTIMATE_BYTES -> {
          return truncated.estimate(itemBytes);
        }
        case UPDATE_ALL -> truncated.updateAll(batch(item), 1);
        case ESTIMATE_ALL -> {
          long[] estimates = new long[BATCH];
          truncated.estimateAll(batch(item), estimates);
          return estimates[0];
        }
        case MERGE_INTO_TRUNCATED -> truncated.merge(partner);
        case MERGE_FROM_TRUNCATED -> partner.merge(truncated);
        default -> throw new AssertionError(this);
      }
      return 0;
    }

    /** More than the sketch guards at once (64), so that a batch spans two guarded runs. */
    static final int BATCH = 100;

    /** {@code item} and items derived from it: a batch that starts with the item the twin checks. */
    static long[] batch(long item) {
      long[] items = new long[BATCH];
      for (int i = 0; i < BATCH; i++) {
        items[i] = item + i * 0x9E37_79B9_7F4A_7C15L;
      }
      return items;
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Operation.class)
  void everyOperationRefusesATruncatedFileWithATypedError(Operation operation) throws IOException {
    System.out.println("TruncatedUnderSketchTest: seed " + Long.toHexString(SEED) + ", " + operation);
    SketchParameters parameters = SketchParameters.ofDimensions(WIDTH, DEPTH).withSeed(SEED)
        .withConservativeUpdate(operation == Operation.CONSERVATIVE_UPDATE);
    Path path = dir.resolve("truncated.cms");
    long[] items = new SplittableRandom(SEED).longs(ITEMS).toArray();
    byte[][] itemBytes = new byte[ITEMS][];
    for (int i = 0; i < ITEMS; i++) {
      itemBytes[i] = Long.toString(items[i]).getBytes(StandardCharsets.UTF_8);
    }
    CountMinSketch sketch = CountMinSketch.create(path, parameters);
    CountMinSketch partner = operation.merges() ? CountMinSketch.create(dir.resolve("partner.cms"), parameters) : null;
    // The same updates on the heap: estimates before the first refusal must equal its.
    CountMinSketch twin = CountMinSketch.inMemory(parameters);
    try {
      // Compiled, as on a busy server: the same loop runs before and after the cut.
      int rounds = operation.merges() ? 300 : 60_000;
      Outcomes warm = new Outcomes();
      for (int round = 0; round < rounds; round++) {
        int i = round % ITEMS;
        sketch.update(items[i], 1 + i % 3);
        twin.update(items[i], 1 + i % 3);
        if (partner != null) {
          partner.update(items[i], 1); // non-zero counters, which a merge from it adds
        }
        run(operation, sketch, partner, twin, items, itemBytes, i, warm);
      }
      assertEquals(0, warm.refused + warm.wrong, "before the cut");
      truncate(path);

      // Few merges: each reads or writes every counter, and before, each access past the cut faulted.
      int calls = operation.merges() ? 8 : ITEMS;
      Outcomes outcomes = new Outcomes();
      boolean done = false;
      while (!done) {
        try {
          for (; outcomes.next < calls; outcomes.next++) {
            run(operation, sketch, partner, twin, items, itemBytes, outcomes.next, outcomes);
          }
          outcomes.escaped += MappingFaults.absorbLate();
          done = true;
        } catch (InternalError late) {
          // Delivered outside the sketch's operations: what must never happen.
          outcomes.escaped++;
          outcomes.next++;
        }
      }
      System.out.println("TruncatedUnderSketchTest: " + operation + ": " + outcomes.refused + " calls refused (the first at "
          + outcomes.firstRefused + "), " + outcomes.escaped + " errors the JVM delivered outside them, " + outcomes.wrong
          + " wrong estimates, " + outcomes.servedAfterFailure + " calls served after the first refusal");
      assertEquals(0, outcomes.escaped, "errors the JVM delivered outside the sketch's operations");
      assertEquals(0, outcomes.wrong, "wrong estimates before the first refusal");
      assertEquals(0, outcomes.servedAfterFailure, "calls served after the sketch refused one");
      // Rows 1 to 3 lie wholly past the cut, so every call touches a cut page: a call that returned
      // normally had its writes dropped or its reads made up.
      assertEquals(0, outcomes.firstRefused, "calls served though they touched the cut part of the file");
      for (String message : outcomes.messages) {
        assertTrue(message.contains(path.toString()) && message.contains("truncated"), message);
      }
      refusesEveryLaterCall(sketch, path);
      if (operation == Operation.MERGE_FROM_TRUNCATED) {
        // It took part of the merge, made of faulted reads: its counts are no better than the file's.
        refusesEveryLaterCall(partner, path);
      } else if (partner != null) {
        partner.estimate(items[0]); // only read: intact
        partner.flush();
      }
    } finally {
      closeAfterFailure(sketch);
      if (partner != null) {
        closeAfterFailure(partner);
      }
    }
  }

  /** How the calls after the cut went, kept across errors the JVM throws at any point. */
  private static final class Outcomes {
    int next;
    int refused;
    int firstRefused = -1;
    int wrong;
    int servedAfterFailure;
    int escaped;
    final List<String> messages = new ArrayList<>();
  }

  /**
   * Counts, never asserts: a failing assertion allocates its message, which gives the JVM the call
   * into its runtime where it delivers a pending fault, and the fault would then replace the failure.
   */
  private static void run(Operation operation, CountMinSketch sketch, CountMinSketch partner, CountMinSketch twin,
      long[] items, byte[][] itemBytes, int i, Outcomes outcomes) {
    try {
      long estimate = operation.apply(sketch, partner, items[i], itemBytes[i]);
      if (outcomes.firstRefused >= 0) {
        outcomes.servedAfterFailure++;
      } else if ((operation == Operation.ESTIMATE_LONG || operation == Operation.ESTIMATE_ALL) && estimate != twin.estimate(items[i])
          || operation == Operation.ESTIMATE_BYTES && estimate != twin.estimate(itemBytes[i])) {
        outcomes.wrong++;
      }
    } catch (CorruptStoreException refused) {
      outcomes.messages.add(refused.getMessage());
      if (outcomes.firstRefused < 0) {
        outcomes.firstRefused = i;
      }
      outcomes.refused++;
    }
  }

  /** Every operation of {@code failed} refuses, naming the truncated file; describing it still works. */
  private static void refusesEveryLaterCall(CountMinSketch failed, Path truncated) {
    List<Executable> calls = List.of(
        () -> failed.update(1L, 1), () -> failed.update(new byte[] {1}, 1), () -> failed.estimate(1L),
        () -> failed.estimate(new byte[] {1}), () -> failed.updateAll(new long[] {1}, 1),
        () -> failed.estimateAll(new long[] {1}, new long[1]), failed::totalWeight, failed::ramBytesUsed, failed::flush,
        () -> failed.merge(CountMinSketch.inMemory(failed.parameters())));
    for (Executable call : calls) {
      CorruptStoreException refused = assertThrows(CorruptStoreException.class, call);
      assertTrue(refused.getMessage().contains(truncated.toString()) && refused.getMessage().contains("truncated"),
          refused.getMessage());
    }
    assertNotNull(failed.parameters());
    assertTrue(failed.sizeBytes() > 0);
  }

  /** Close of a failed sketch releases it and refuses to call its counts saved; later calls see it closed. */
  private static void closeAfterFailure(CountMinSketch sketch) {
    try {
      sketch.close();
    } catch (CorruptStoreException expected) {
      // a failed sketch: its counts are lost
    }
    assertThrows(IllegalStateException.class, () -> sketch.estimate(1L));
  }

  /** Cuts the body after {@link #PAGES_KEPT} pages, as another process's truncate does. */
  private static void truncate(Path path) throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
      channel.truncate(SketchParameters.DEFAULT_PAGE_SIZE * (1L + PAGES_KEPT));
    }
  }

  /** A flush, with counts changed since the last one, finds the file cut: refused, and so is every later call. */
  @Test
  void aFlushOfATruncatedFileRefusesAndFailsTheSketch() throws IOException {
    Path path = dir.resolve("flushed.cms");
    CountMinSketch sketch = CountMinSketch.create(path, SketchParameters.ofDimensions(WIDTH, DEPTH).withSeed(SEED));
    try {
      sketch.update(1L, 1);
      truncate(path);
      CorruptStoreException refused = assertThrows(CorruptStoreException.class, sketch::flush);
      assertTrue(refused.getMessage().contains(path.toString()) && refused.getMessage().contains("truncated"), refused.getMessage());
      refusesEveryLaterCall(sketch, path);
    } finally {
      closeAfterFailure(sketch);
    }
  }

  /** A close that finds the file cut refuses to call the counts saved, but releases the sketch. */
  @Test
  void aCloseOfATruncatedFileRefusesAndReleasesTheSketch() throws IOException {
    Path path = dir.resolve("closed.cms");
    CountMinSketch sketch = CountMinSketch.create(path, SketchParameters.ofDimensions(WIDTH, DEPTH).withSeed(SEED));
    sketch.update(1L, 1);
    truncate(path);
    CorruptStoreException refused = assertThrows(CorruptStoreException.class, sketch::close);
    assertTrue(refused.getMessage().contains(path.toString()) && refused.getMessage().contains("truncated"), refused.getMessage());
    assertThrows(IllegalStateException.class, () -> sketch.update(1L, 1));
    sketch.close(); // idempotent
    // The file was released: it can be opened again (and is refused as the damage it is).
    assertThrows(CorruptStoreException.class, () -> CountMinSketch.openAfterCrash(path));
  }

  /**
   * A fault of a mapping whose file is as long as when opened is no truncation: a write the file
   * system could not take (a full disk under a sparse or copy-on-write file), which the message
   * must not blame on a cut. Other errors pass unchanged.
   */
  @Test
  void aFaultOfAFileAsLongAsWhenOpenedIsReportedAsALostWrite() throws IOException {
    Path path = dir.resolve("full.cms");
    Files.write(path, new byte[3 * 4096]);
    OpenOption[] read = {StandardOpenOption.READ, StandardOpenOption.WRITE};
    try (InterruptSafeFile channel = InterruptSafeFile.open(FileChannel::open, path, read, read)) {
      SketchFileFaults faults = new SketchFileFaults(path, channel, 3 * 4096);
      RuntimeException lost = faults.fault(new InternalError("a fault occurred in an unsafe memory access operation"));
      assertTrue(lost instanceof UncheckedIOException, String.valueOf(lost));
      assertTrue(lost.getMessage().contains(path.toString()) && lost.getMessage().contains("full disk"), lost.getMessage());
      InternalError other = new InternalError("something else");
      assertEquals(other, assertThrows(InternalError.class, () -> faults.fault(other)));
      channel.truncate(4096); // only for this check; a sketch's channel never truncates
      assertTrue(faults.fault(new InternalError("a fault occurred in an unsafe memory access operation"))
          instanceof CorruptStoreException);
    }
  }
}
