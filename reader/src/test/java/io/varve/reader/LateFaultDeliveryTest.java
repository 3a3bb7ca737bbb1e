package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.FileRegion;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression: on JDK 17 a read of a truncated mapping in compiled code does not throw; the JVM
 * keeps an {@link InternalError} pending and delivers it when the thread next comes back from its
 * runtime. {@link DataFaults#absorbLateFaults} gave it {@code Thread.yield()}, a native call, which
 * does not deliver it: the error then surfaced in the caller's code (CI saw it escape
 * {@link TruncatedUnderReaderTest} after its last lookup). On JDKs that throw at the read itself
 * there is nothing pending, which this test accepts.
 */
class LateFaultDeliveryTest {
  private static final int PAGES = 256;
  private static long sink;

  @TempDir Path temp;

  @Test
  void aFaultPendingFromCompiledCodeIsDeliveredWhereTheStoreAbsorbsIt() throws IOException {
    Path file = temp.resolve("mapped");
    MappedByteBuffer mapping = mapZeros(file);
    // Compiled, as a busy server's lookups are, with the absorbing call warm too: the first call
    // of a method from interpreted code goes through the runtime, which would deliver the error
    // before absorbLateFaults could.
    for (int round = 0; round < 20_000; round++) {
      readThenAbsorb(mapping, round % PAGES, round % 100 == 0);
    }
    truncateToOnePage(file);
    checkDelivered(readThenAbsorb(mapping, PAGES / 2, true), "absorbLateFaults");
  }

  /**
   * The lookups that read their record in the mapping (a record too large for {@link RecordCopy},
   * a store without checksums, the end of {@code getAll}) settle their reads with {@link
   * DataFaults#settleReads}, whose call into the runtime must deliver the pending fault there. Its
   * own read-then-settle method, so that no call site shared with the test above (whose first
   * calls go through the runtime) delivers the error first.
   */
  @Test
  void aFaultPendingFromCompiledCodeIsDeliveredWhereALookupSettlesItsReads() throws IOException {
    Path file = temp.resolve("mapped");
    MappedByteBuffer mapping = mapZeros(file);
    DataFaults faults = new DataFaults(temp, FileRegion.whole(file, PAGES * 4096L), DataAccess.MAPPED, new LookupGuard("store"));
    for (int round = 0; round < 20_000; round++) {
      readThenSettle(mapping, round % PAGES, faults);
    }
    truncateToOnePage(file);
    checkDelivered(readThenSettle(mapping, PAGES / 2, faults), "settleReads");
  }

  /** A file of PAGES zero pages at {@code file}, mapped. */
  private static MappedByteBuffer mapZeros(Path file) throws IOException {
    Files.write(file, new byte[PAGES * 4096]);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      return channel.map(FileChannel.MapMode.READ_ONLY, 0, PAGES * 4096L);
    }
  }

  private static void truncateToOnePage(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(4096);
    }
  }

  /**
   * {@code outcome} of the read past the cut: thrown at the read, or pending and delivered once by
   * {@code trigger}, with nothing left pending after it.
   */
  private static void checkDelivered(int outcome, String trigger) {
    System.out.println(
        "LateFaultDeliveryTest: "
            + (outcome == THROWN_AT_THE_READ ? "thrown at the read" : "pending after the read, " + outcome + " delivered by " + trigger));
    assertTrue(outcome == THROWN_AT_THE_READ || outcome == 1, trigger + " delivered " + outcome + " errors");
    assertTrue(nothingLeftPending(), "an error was still pending after " + trigger);
  }

  /** Reads a page, then settles: 1 when settleReads delivered an error, 0 when not, or THROWN_AT_THE_READ. */
  private static int readThenSettle(MappedByteBuffer mapping, int page, DataFaults faults) {
    try {
      sink += sumPage(mapping, page);
    } catch (InternalError atTheRead) {
      return THROWN_AT_THE_READ;
    }
    try {
      faults.settleReads();
      return 0;
    } catch (InternalError delivered) {
      return 1;
    }
  }

  private static final int THROWN_AT_THE_READ = -1;

  /** Reads a page, then absorbs: how many errors absorbLateFaults delivered, or THROWN_AT_THE_READ. */
  private static int readThenAbsorb(MappedByteBuffer mapping, int page, boolean absorb) {
    try {
      sink += sumPage(mapping, page);
    } catch (InternalError atTheRead) {
      return THROWN_AT_THE_READ;
    }
    try {
      return absorb ? DataFaults.absorbLateFaults() : 0;
    } catch (InternalError atTheCall) {
      // Delivered by the call itself (a call that deoptimizes returns through the runtime): still
      // where the store absorbs it, which DataFaults#truncated allows for. Seen once in a full suite.
      assertTrue(atTheCall.getMessage().contains("unsafe memory access"), atTheCall.getMessage());
      return 1;
    }
  }

  /** Calls into the runtime many times (each delivers a pending error): true when none came. */
  private static boolean nothingLeftPending() {
    try {
      for (int i = 0; i < 20; i++) {
        DataFaults.absorbLateFaults();
        sink += new long[1 << 18].length;
      }
      return true;
    } catch (InternalError late) {
      return false;
    }
  }

  private static long sumPage(MappedByteBuffer mapping, int page) {
    long sum = 0;
    for (int at = page * 4096; at < (page + 1) * 4096; at += 8) {
      sum += mapping.getLong(at);
    }
    return sum;
  }
}
