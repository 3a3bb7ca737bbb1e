package io.varve.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A store file holds exactly the bytes written, whatever the mix of write sizes and flushes, with
 * its header and its footer's checksum; {@link PageCacheWrites#HUGE_PAGES} writes land in huge
 * folios where the kernel makes them.
 */
class StoreFileWriterTest {
  private static final long SEED = 0xF11EL;

  @TempDir Path temp;

  @ParameterizedTest
  @CsvSource({"DATA, SMALL", "DATA, HUGE_PAGES", "DATA, UNCACHED", "INDEX, SMALL", "INDEX, HUGE_PAGES", "INDEX, UNCACHED"})
  void holdsTheBytesWrittenWhateverTheWriteSizes(StoreFile kind, PageCacheWrites writes) throws IOException {
    System.out.println("StoreFileWriterTest " + kind + " " + writes + " seed=" + SEED);
    SplittableRandom random = new SplittableRandom(SEED);
    Path path = temp.resolve(kind.fileName());
    ByteArrayOutputStream payload = new ByteArrayOutputStream();
    StoreFileWriter.FileSummary summary;
    boolean bypassed = false;
    try (StoreFileWriter out = StoreFileWriter.create(path, kind, writes)) {
      for (int step = 0; step < 400; step++) {
        int choice = random.nextInt(10);
        if (choice == 0) {
          out.flush(); // leaves the file position off any boundary
          // What was written can be read back at once: the file ends with the last byte written.
          int header = kind.payloadOffset();
          assertEquals(header + payload.size(), Files.size(path));
          if (payload.size() > 0) {
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
              ByteBuffer last = ByteBuffer.allocate(1);
              channel.read(last, header + payload.size() - 1L);
              assertEquals(lastByte(payload), last.get(0));
            }
          }
        } else if (choice < 4) {
          int b = random.nextInt(256);
          out.write(b);
          payload.write(b);
        } else {
          // Mostly small pieces, some larger than a chunk (several chunks at once).
          int length = choice < 9 ? random.nextInt(70_000) : random.nextInt(5 << 20);
          byte[] bytes = new byte[length + 3];
          random.nextBytes(bytes);
          out.write(bytes, 1, length);
          payload.write(bytes, 1, length);
        }
        assertEquals(payload.size(), out.payloadBytes());
        bypassed |= out.bypassesPageCache();
      }
      summary = out.finish();
    }
    assertTrue(payload.size() > StoreFileWriter.UNCACHED_FROM_BYTES, "the file outgrew the cached head");
    if (writes == PageCacheWrites.UNCACHED && directWritesWork(temp)) {
      assertTrue(bypassed, "the writes bypassed the page cache past its head");
    } else {
      assertTrue(!bypassed, "only UNCACHED bypasses the page cache");
    }
    byte[] file = Files.readAllBytes(path);
    int header = kind.payloadOffset();
    assertEquals(summary.size(), file.length);
    assertEquals(header + payload.size() + StoreFile.FOOTER_LENGTH, file.length);
    byte[] written = java.util.Arrays.copyOfRange(file, header, header + payload.size());
    assertArrayEquals(payload.toByteArray(), written);
    CRC32C crc = new CRC32C();
    crc.update(file, 0, file.length - StoreFile.FOOTER_LENGTH);
    assertEquals((int) crc.getValue(), summary.checksum());
    assertEquals(summary.checksum(), StoreFileReader.verify(path, kind));
  }

  private static byte lastByte(ByteArrayOutputStream payload) {
    // Slow (a copy) but rare: once per flush.
    byte[] bytes = payload.toByteArray();
    return bytes[bytes.length - 1];
  }

  /** Whether this directory's file system takes writes past the page cache. */
  private static boolean directWritesWork(Path directory) throws IOException {
    Path probe = Files.createTempFile(directory, "direct", ".probe");
    try (FileChannel channel = FileChannel.open(probe, StandardOpenOption.WRITE, com.sun.nio.file.ExtendedOpenOption.DIRECT)) {
      return true;
    } catch (IOException | UnsupportedOperationException e) {
      System.out.println("no writes past the page cache in " + directory + ": " + e);
      return false;
    } finally {
      Files.delete(probe);
    }
  }

  /**
   * Where the kernel caches 2 MiB-aligned 2 MiB writes in huge folios (a control file written so
   * shows it), a mapping of a file written with {@link PageCacheWrites#HUGE_PAGES} is backed by
   * huge pages too. Skipped elsewhere.
   */
  @Test
  void hugePageWritesAreCachedInHugeFoliosWhereTheKernelDoesSo() throws IOException {
    assumeTrue(Files.isReadable(Path.of("/proc/self/smaps")), "needs Linux /proc");
    int size = 8 << 20;
    SplittableRandom random = new SplittableRandom(SEED + 1);
    Path control = temp.resolve("control");
    try (FileChannel channel = FileChannel.open(control, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      byte[] chunk = new byte[PageCacheWrites.HUGE_PAGES.chunkBytes()];
      for (int written = 0; written < size; written += chunk.length) {
        random.nextBytes(chunk);
        ByteBuffer buffer = ByteBuffer.wrap(chunk);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
      }
    }
    assumeTrue(hugePageMappedBytes(control) > 0, "this kernel or file system caches 2 MiB writes in small folios");

    Path data = temp.resolve("data");
    try (StoreFileWriter out = StoreFileWriter.create(data, StoreFile.DATA, PageCacheWrites.HUGE_PAGES)) {
      for (int written = 0; written < size; ) {
        byte[] piece = new byte[1 + random.nextInt(100_000)];
        random.nextBytes(piece);
        out.write(piece);
        written += piece.length;
      }
      out.finish();
    }
    long huge = hugePageMappedBytes(data);
    System.out.printf("StoreFileWriterTest: %d of %d MiB mapped in huge pages%n", huge >> 20, Files.size(data) >> 20);
    assertTrue(huge >= 2L * PageCacheWrites.HUGE_PAGES.chunkBytes(), "only " + huge + " bytes in huge pages");
  }

  /** Maps {@code file}, reads every page, and returns the bytes of the mapping backed by huge pages. */
  private static long hugePageMappedBytes(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
      long sum = 0;
      for (int i = 0; i < mapped.capacity(); i += 4096) {
        sum += mapped.get(i);
      }
      assertTrue(sum != Long.MIN_VALUE);
      String name = file.toRealPath().toString();
      List<String> lines = Files.readAllLines(Path.of("/proc/self/smaps"));
      long pmd = 0;
      boolean inFile = false;
      for (String line : lines) {
        if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
          inFile = line.endsWith(" " + name);
        } else if (inFile && line.startsWith("FilePmdMapped:")) {
          pmd += Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
        }
      }
      return pmd;
    }
  }
}
