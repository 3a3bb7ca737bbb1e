package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.varve.core.format.FileRegion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A data file the kernel refuses to map (here a {@code /proc} file, which cannot be mapped, as a
 * file of a FUSE mount without mmap cannot; the same refusal comes when a process has used up its
 * {@code vm.max_map_count}): opening fails with an {@link IOException} that names the file, as
 * {@link Store#open}'s signature says, and holds no descriptor of it. Chronicle Bytes reported it
 * as its unchecked {@code IORuntimeException} without the file's name ("No such device", "Map
 * failed"), which escaped callers that catch {@code IOException}, such as a server's refresh loop.
 */
class UnmappableFileTest {
  private static final Path UNMAPPABLE = Path.of("/proc/self/status");

  @ParameterizedTest
  @EnumSource(DataAccess.class)
  void chronicleRefusalIsAnIoExceptionNamingTheFile(DataAccess access) throws IOException {
    assumeTrue(Files.isReadable(UNMAPPABLE) && ChronicleAccess.isGranted(), "needs Linux's /proc and Chronicle's JVM options");
    FileRegion region = FileRegion.whole(UNMAPPABLE, 100);
    long before = descriptorsOf(UNMAPPABLE);
    if (access == DataAccess.MAPPED) {
      IOException e = assertThrows(IOException.class, () -> RecordMemory.open(region, access));
      assertTrue(e.getMessage().startsWith(UNMAPPABLE + ": cannot be mapped"), e.getMessage());
    } else {
      RecordMemory.open(region, access).close(); // read, not mapped: it loads
    }
    assertEquals(before, settledDescriptorsOf(UNMAPPABLE, before), "a descriptor of the file was left open");
  }

  /**
   * The descriptors of {@code file} once they come back to {@code expected}, or after 2 s: the JVM
   * reads {@code /proc/self/status} on threads of its own (Temurin 25 did during one CI run), so a
   * count taken once may see its descriptor for a moment. A leak stays.
   */
  private static long settledDescriptorsOf(Path file, long expected) throws IOException {
    long deadline = System.nanoTime() + 2_000_000_000L;
    long n;
    while ((n = descriptorsOf(file)) != expected && System.nanoTime() < deadline) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return n;
  }

  @ParameterizedTest
  @EnumSource(DataAccess.class)
  void fallbackRefusalNamesTheFile(DataAccess access) throws IOException {
    assumeTrue(Files.isReadable(UNMAPPABLE), "needs Linux's /proc");
    FileRegion region = FileRegion.whole(UNMAPPABLE, 100);
    if (access == DataAccess.MAPPED) {
      IOException e = assertThrows(IOException.class, () -> BufferMemory.open(region, access, BufferMemory.CHUNK_SHIFT));
      assertTrue(e.getMessage().startsWith(UNMAPPABLE + ": cannot be mapped"), e.getMessage());
    } else {
      BufferMemory.open(region, access, BufferMemory.CHUNK_SHIFT).close(); // read, not mapped: it loads
    }
    assertEquals(0, settledDescriptorsOf(UNMAPPABLE, 0));
  }

  private static long descriptorsOf(Path file) throws IOException {
    long n = 0;
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          if (Files.readSymbolicLink(fd).toString().endsWith("/status")) {
            n++;
          }
        } catch (IOException gone) {
          // The listing's own descriptor, closed by now.
        }
      }
    }
    return n;
  }
}
