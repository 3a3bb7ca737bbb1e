package io.varve.core.testing;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;

/**
 * What a file held, page by page, at its last successful {@code force}: the crash tests' record of
 * what a power loss, or a failed {@code fsync} whose pages the kernel dropped, may take back. A
 * recording channel calls {@link #remember} before each write and {@link #forced} after each force;
 * a test then applies the loss to a copy of the file ({@link #undoInto}). Not thread-safe: the
 * recording channels serialize their calls.
 */
public final class ForcedPages implements Closeable {
  private final int pageBytes;
  /** Reads pages before they change: the owner may open the file for writing only. */
  private final FileChannel reader;
  private final Map<Long, byte[]> pages = new HashMap<>();
  private long forcedSize;

  /** Starts the record of {@code file}, whose current content counts as forced. */
  public ForcedPages(Path file, int pageBytes) throws IOException {
    this.pageBytes = pageBytes;
    this.reader = FileChannel.open(file, StandardOpenOption.READ);
    this.forcedSize = reader.size();
  }

  /** Keeps the forced content of the pages {@code [position, position + length)} touch, once each, before they change. */
  public void remember(long position, long length) throws IOException {
    for (long page = position / pageBytes; page * pageBytes < position + length; page++) {
      if (pages.containsKey(page)) {
        continue;
      }
      int bytes = (int) Math.max(0, Math.min(pageBytes, forcedSize - page * pageBytes));
      ByteBuffer before = ByteBuffer.allocate(bytes);
      while (before.hasRemaining() && reader.read(before, page * pageBytes + before.position()) >= 0) {
        // reads the page as last forced: nothing since touched it
      }
      pages.put(page, before.array());
    }
  }

  /** The numbers of the pages changed since the last force, in order. */
  public List<Long> unforcedPages() {
    return pages.keySet().stream().sorted().toList();
  }

  /** After a successful force: the file's content, now {@code size} bytes, is all durable. */
  public void forced(long size) {
    pages.clear();
    forcedSize = size;
  }

  /**
   * Writes the forced content of the pages {@code lost} accepts (page numbers) into {@code copy},
   * and cuts it to the forced length if {@code truncate}. Where the copy keeps its length, a lost
   * page's bytes past the forced length read as zeros, as a power loss leaves them.
   */
  public void undoInto(Path copy, LongPredicate lost, boolean truncate) throws IOException {
    try (FileChannel channel = FileChannel.open(copy, StandardOpenOption.WRITE)) {
      long size = channel.size();
      for (Map.Entry<Long, byte[]> page : pages.entrySet()) {
        long start = page.getKey() * pageBytes;
        if (lost.test(page.getKey()) && start < size) {
          byte[] forced = truncate ? page.getValue() : Arrays.copyOf(page.getValue(), (int) Math.min(pageBytes, size - start));
          channel.write(ByteBuffer.wrap(forced), start);
        }
      }
      if (truncate && channel.size() > forcedSize) {
        channel.truncate(forcedSize);
      }
    }
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
