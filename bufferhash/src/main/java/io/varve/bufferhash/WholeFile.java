package io.varve.bufferhash;

import io.varve.core.files.InterruptSafeFile;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.SaltedCrc32c;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Reads a file of the table that is read through on open (a write-ahead segment, the buffers
 * file) a window at a time: such a file may be larger than the heap (a large buffer budget, a
 * segment of a process with a larger heap), and reading it whole gave an {@link OutOfMemoryError}.
 * At most {@link #WINDOW_BYTES} are held, or the one record asked for when it is longer; a record
 * the heap cannot take in is refused first ({@link #checkHeap}). Not thread-safe; one reader at a
 * time.
 */
final class WholeFile implements AutoCloseable {
  /** The longest file read: positions in it are ints, and no table writes one so long. */
  static final long MAX_BYTES = Integer.MAX_VALUE - 8;
  /** Bytes read at once, and the longest record read into the window (longer ones get an array of their own). */
  static final int WINDOW_BYTES = 1 << 20;

  private final Path file;
  private final String what;
  /** Read on a thread being interrupted too, as the whole-file read it replaces was: open may run on one. */
  private final InterruptSafeFile channel;
  private final long size;
  private final byte[] window = new byte[WINDOW_BYTES];
  private long windowStart;
  private int windowLength;

  private WholeFile(Path file, String what, InterruptSafeFile channel, long size) {
    this.file = file;
    this.what = what;
    this.channel = channel;
    this.size = size;
  }

  /**
   * Opens {@code file}, a {@code what}, for reading.
   *
   * @throws CorruptStoreException if it is longer than {@link #MAX_BYTES}: no table writes one so
   *     long (a file extended under the table, or a damaged file system)
   */
  static WholeFile open(Path file, String what) throws IOException {
    long size = Files.size(file);
    if (size > MAX_BYTES) {
      throw new CorruptStoreException(file + ": " + size + " bytes, longer than any " + what + " (extended or damaged)");
    }
    return new WholeFile(file, what, InterruptSafeFile.open(FileChannel::open, file, new OpenOption[] {StandardOpenOption.READ}, StandardOpenOption.READ), size);
  }

  /** The file's length when it was opened. */
  int size() {
    return (int) size;
  }

  /**
   * Makes the {@code count} bytes at {@code position} readable in {@link #window()} and returns
   * where they start there; {@code count} is at most {@link #WINDOW_BYTES}, and the bytes lie
   * within the file.
   */
  int at(long position, int count) throws IOException {
    if (position >= windowStart && position + count <= windowStart + windowLength) {
      return (int) (position - windowStart);
    }
    if (count > WINDOW_BYTES || position + count > size) {
      throw new IllegalArgumentException(count + " bytes at " + position + ": more than the window, or past the end");
    }
    int length = (int) Math.min(WINDOW_BYTES, size - position);
    windowLength = 0; // a failed read leaves no stale window
    readFully(ByteBuffer.wrap(window, 0, length), position);
    windowStart = position;
    windowLength = length;
    return 0;
  }

  /** The window {@link #at} placed the bytes asked for in. */
  byte[] window() {
    return window;
  }

  /**
   * The {@code count} bytes at {@code position} in an array of their own, which the caller takes
   * in (a record too long for the window): refused first when the heap cannot hold {@code
   * heapFactor} times as much (the array and the copies made of it).
   */
  byte[] read(long position, int count, int heapFactor, String record) throws IOException {
    checkHeap(file, record, (long) count * heapFactor);
    byte[] bytes = new byte[count];
    readFully(ByteBuffer.wrap(bytes), position);
    return bytes;
  }

  /**
   * Throws {@link HeapTooSmallException} when {@code bytes} are more than the heap's maximum: the
   * open would die with an {@link OutOfMemoryError} taking it in.
   */
  static void checkHeap(Path file, String record, long bytes) throws HeapTooSmallException {
    if (!heapHolds(bytes)) {
      throw heapTooSmall(file, record, bytes);
    }
  }

  /**
   * Whether the heap's maximum is at least {@code bytes}. Not what is free now ({@code maxMemory -
   * (totalMemory - freeMemory)}): that counts garbage not yet collected as used, and under -Xmx64m
   * it refused a 40 MiB array that was then allocated 2 to 19 times in 20 (by collector and JDK),
   * so the refusal would come and go with the collector's timing. This refuses only what this JVM
   * can never hold, and tells the same thing every time; less can still run out of memory.
   */
  static boolean heapHolds(long bytes) {
    return bytes <= Runtime.getRuntime().maxMemory();
  }

  /** The refusal of {@code record} in {@code file}, which needs {@code bytes} of heap. */
  static HeapTooSmallException heapTooSmall(Path file, String record, long bytes) {
    return new HeapTooSmallException(file, record, bytes, Runtime.getRuntime().maxMemory());
  }

  /** Check({@code [from, to)}) of the table of id {@code tableId} ({@link LogFormat#check}), a window at a time. */
  int check(long tableId, long from, long to) throws IOException {
    CRC32C crc = SaltedCrc32c.start(tableId);
    for (long at = from; at < to; ) {
      int length = (int) Math.min(WINDOW_BYTES, to - at);
      crc.update(window, at(at, length), length);
      at += length;
    }
    return (int) crc.getValue();
  }

  /** Whether the bytes from {@code from} to the end are all zero (true for none). */
  boolean zerosFrom(long from) throws IOException {
    for (long at = from; at < size; ) {
      int length = (int) Math.min(WINDOW_BYTES, size - at);
      int offset = at(at, length);
      for (int i = offset; i < offset + length; i++) {
        if (window[i] != 0) {
          return false;
        }
      }
      at += length;
    }
    return true;
  }

  private void readFully(ByteBuffer into, long position) throws IOException {
    channel.readFully(into, position);
    if (into.hasRemaining()) {
      throw new CorruptStoreException(file + ": the " + what + " ended at " + (position + into.position()) + " while it was read, "
          + size + " bytes when it was opened (cut under the table?)");
    }
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
