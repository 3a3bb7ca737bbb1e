package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.varve.builder.StoreBuilder;
import io.varve.core.format.FileRegion;
import io.varve.core.store.StoreFile;
import io.varve.core.testing.TestRecords;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data file cut after a store's files were checked and before {@link Store#load} copied it (a
 * load of a large store takes seconds): the load fails with an {@link EOFException} naming the
 * file and keeps nothing. Before, the copy through Chronicle Bytes read a mapping of the file: a
 * page past the cut faulted, and the JVM delivered the fault as an {@code InternalError} ("a fault
 * occurred in a recent unsafe memory access operation"), sometimes only after the load had
 * returned, past callers that catch {@code IOException}; a cut inside the last page loaded zeros
 * without a word.
 */
class TruncatedWhileLoadingTest {
  private static final long SEED = 0xC07L;

  @TempDir Path temp;

  /** Regions that claim more than the file holds, inside its last page and past it. */
  @Test
  void aRegionLongerThanItsFileFailsTheLoadNamingTheFile() throws IOException {
    Path file = Files.write(temp.resolve("data"), new byte[100_000]);
    for (long checked : new long[] {100_001, 102_400, 200_000, 10_000_000}) {
      FileRegion region = FileRegion.whole(file, checked);
      if (ChronicleAccess.isGranted()) {
        long direct = DirectBuffers.usedBytes();
        EOFException e = assertThrows(EOFException.class, () -> ChronicleMemory.load(region));
        assertTrue(e.getMessage().startsWith(file + ": ended at byte 100000, short of the " + checked + " bytes"), e.getMessage());
        assertTrue(DirectBuffers.usedBytes() - direct < 4096, "a direct buffer of " + (DirectBuffers.usedBytes() - direct) + " bytes left to the GC");
        assertEquals(0, mappingsOf(file), "a load maps nothing");
      }
      long direct = DirectBuffers.usedBytes();
      EOFException e = assertThrows(EOFException.class, () -> BufferMemory.open(region, DataAccess.LOADED, BufferMemory.CHUNK_SHIFT));
      assertTrue(e.getMessage().startsWith(file + ": ended at byte 100000"), e.getMessage());
      assertTrue(DirectBuffers.usedBytes() - direct < 4096, "a direct buffer of " + (DirectBuffers.usedBytes() - direct) + " bytes left to the GC");
    }
  }

  /** Through {@link StoreOpener}: the data file is cut after every check passed, just before the copy. */
  @Test
  void aStoreCutBetweenItsChecksAndItsCopy() throws IOException {
    System.out.println("TruncatedWhileLoadingTest seed=" + SEED);
    Map<ByteBuffer, byte[]> records = TestRecords.variable(20_000, SEED, 16, 200);
    Path dir = temp.resolve("store");
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      for (Map.Entry<ByteBuffer, byte[]> record : records.entrySet()) {
        builder.put(record.getKey().array(), record.getValue());
      }
      builder.build();
    }
    Path data = dir.resolve(StoreFile.DATA.fileName());
    byte[] original = Files.readAllBytes(data);
    for (long cut : new long[] {original.length - 1, original.length - 5000, 4096, 0}) {
      EOFException e =
          assertThrows(
              EOFException.class,
              () ->
                  StoreOpener.open(
                      dir,
                      true,
                      DataAccess.LOADED,
                      (region, access) -> {
                        cutTo(data, cut);
                        return RecordMemory.open(region, access);
                      }));
      assertTrue(e.getMessage().startsWith(data + ": ended at byte " + cut), e.getMessage());
      Files.write(data, original);
    }
    try (Store store = Store.load(dir)) {
      for (Map.Entry<ByteBuffer, byte[]> record : records.entrySet()) {
        assertArrayEquals(record.getValue(), store.get(record.getKey().array()));
      }
    }
  }

  private static void cutTo(Path file, long length) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(length);
    }
  }

  private static long mappingsOf(Path file) throws IOException {
    assumeTrue(Files.isReadable(Path.of("/proc/self/maps")), "needs /proc");
    try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
      return lines.filter(line -> line.endsWith(" " + file)).count();
    }
  }
}
