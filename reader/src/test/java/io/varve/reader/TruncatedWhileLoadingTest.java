package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.varve.core.format.FileRegion;
import java.io.EOFException;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data file cut after the store's files were checked and before {@link Store#load} copied it
 * (a load of a large store takes seconds): the load fails with an {@link EOFException} naming the
 * file and keeps nothing. Through Chronicle Bytes, the copy's read of a page the file no longer
 * held escaped as the JVM's {@code InternalError} ("a fault occurred in a recent unsafe memory
 * access operation"), past callers that catch {@code IOException} (a follower's refresh loop);
 * through the fallback, the half-filled direct buffer was left to the GC. Here the region claims
 * more than the file holds, as the cut leaves it.
 */
class TruncatedWhileLoadingTest {
  @TempDir Path temp;

  @Test
  void aFileCutBeforeTheCopyFailsTheLoadNamingIt() throws IOException {
    assumeTrue(Files.isReadable(Path.of("/proc/self/maps")), "needs /proc");
    Path file = Files.write(temp.resolve("data"), new byte[100_000]);
    for (long checked : new long[] {100_001, 200_000, 10_000_000}) {
      FileRegion region = FileRegion.whole(file, checked);
      if (ChronicleAccess.isGranted()) {
        long maps = mappingsOf(file);
        EOFException e = assertThrows(EOFException.class, () -> ChronicleMemory.load(region));
        assertTrue(e.getMessage().startsWith(file + ": shorter than the " + checked + " bytes"), e.getMessage());
        assertEquals(maps, mappingsOf(file), "the file stays mapped");
      }
      long direct = directBytes();
      EOFException e = assertThrows(EOFException.class, () -> BufferMemory.open(region, DataAccess.LOADED, BufferMemory.CHUNK_SHIFT));
      assertTrue(e.getMessage().startsWith(file + ": ended at byte 100000"), e.getMessage());
      assertTrue(directBytes() - direct < 4096, "a direct buffer of " + (directBytes() - direct) + " bytes left to the GC");
    }
  }

  private static long mappingsOf(Path file) throws IOException {
    try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
      return lines.filter(line -> line.endsWith(" " + file)).count();
    }
  }

  private static long directBytes() {
    long used = 0;
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        used += pool.getMemoryUsed();
      }
    }
    return used;
  }
}
