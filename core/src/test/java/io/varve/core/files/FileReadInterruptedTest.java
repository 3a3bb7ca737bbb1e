package io.varve.core.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FileReadInterrupted#naming}: a stream over a {@code FileChannel}, read on a thread whose
 * interrupt flag is set, fails with the file named (the channel's bare ClosedByInterruptException,
 * unwrapped), and reads as the stream it wraps otherwise.
 */
class FileReadInterruptedTest {
  @TempDir Path dir;

  @Test
  void aStreamCutShortByAnInterruptNamesItsFile() throws IOException {
    Path file = dir.resolve("hashes");
    byte[] bytes = new byte[100_000];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) (i * 31);
    }
    Files.write(file, bytes);
    try (InputStream in = FileReadInterrupted.naming(file.toString(), Channels.newInputStream(FileChannel.open(file, StandardOpenOption.READ)))) {
      assertArrayEquals(bytes, in.readAllBytes());
    }
    try (InputStream in = FileReadInterrupted.naming(file.toString(), Channels.newInputStream(FileChannel.open(file, StandardOpenOption.READ)))) {
      assertEquals(bytes[0] & 0xFF, in.read());
      Thread.currentThread().interrupt();
      try {
        FileReadInterrupted e = assertThrows(FileReadInterrupted.class, () -> in.read(new byte[10], 0, 10));
        assertEquals(file.toString(), e.file());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
      } finally {
        assertTrue(Thread.interrupted(), "the interrupt flag was cleared");
      }
    }
    try (InputStream in = FileReadInterrupted.naming(file.toString(), Channels.newInputStream(FileChannel.open(file, StandardOpenOption.READ)))) {
      Thread.currentThread().interrupt(); // a BufferedInputStream asks available() before it reads
      try {
        assertEquals(file.toString(), assertThrows(FileReadInterrupted.class, in::available).file());
      } finally {
        assertTrue(Thread.interrupted(), "the interrupt flag was cleared");
      }
    }
  }
}
