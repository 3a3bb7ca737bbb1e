package io.varve.builder;

import io.varve.core.store.PageTable;
import io.varve.core.store.PagedLayout;
import io.varve.core.store.RecordChecksum;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Packs records fed in hash order into the frames of a paged data payload ({@link PagedLayout}) and
 * collects its {@link PageTable}. A frame's records wait in a page-sized buffer until the frame is
 * full, because their offsets, and so their checksums, follow from the head, whose length is known
 * only then; a record that runs past its frame is written straight from the caller's bytes. Use:
 * {@link #add} per record, then {@link #finish} once. Not thread-safe.
 */
final class PagedDataWriter {
  /** Receives the payload offset of each record written, in order. */
  @FunctionalInterface
  interface StartSink {
    void start(long payloadOffset) throws IOException;
  }

  private final OutputStream out;
  private final int pageBytes;
  private final RecordChecksum checksum;
  private final RecordChecksum headChecksum;
  /** The data file's {@code recordCheckSalt}, added to every checked offset. */
  private final long salt;
  private final int checkBytes;
  private final StartSink starts;
  private final PageTable.Builder table;
  /** The current frame's records, each followed by room for its check. */
  private final byte[] buffered;
  private final int[] sizes;
  private final int[] fragments;
  private final byte[] head;
  private final byte[] zeros;
  private final byte[] check = new byte[RecordChecksum.BYTES];
  /** The payload offset of the current frame. */
  private long frameBase;
  /** Bytes of the current frame that an earlier record's tail takes. */
  private int headerStart;
  private int count;
  private int bufferedBytes;
  private int first;
  /** Payload bytes written so far. */
  private long written;
  /** Where the next bytes written start: past the padding of a frame closed without a crossing record. */
  private long nextStart;
  private boolean finished;

  PagedDataWriter(OutputStream out, int pageBytes, RecordChecksum checksum, long salt, StartSink starts) {
    this.out = out;
    this.pageBytes = pageBytes;
    this.checksum = checksum;
    this.salt = salt;
    this.headChecksum = PagedLayout.headChecksum(checksum);
    this.checkBytes = checksum.bytes();
    this.starts = starts;
    this.table = PageTable.builder(pageBytes);
    int maxRecords = PagedLayout.maxRecordsPerFrame(pageBytes, checkBytes);
    this.buffered = new byte[pageBytes];
    this.sizes = new int[maxRecords];
    this.fragments = new int[maxRecords];
    this.head = new byte[PagedLayout.headBytes(maxRecords)];
    this.zeros = new byte[pageBytes];
  }

  /**
   * Adds the record {@code bytes[from, from + length)} (header, key and value, as {@link
   * io.varve.core.store.RecordFormat} lays them out; its check is appended here), whose key hash
   * gives {@code first} ({@link PagedLayout#first}) and {@code fragment}.
   */
  void add(byte[] bytes, int from, int length, int first, int fragment) throws IOException {
    if (finished) {
      throw new IllegalStateException("the paged data is finished");
    }
    long size = (long) length + checkBytes;
    while (true) {
      if (!PagedLayout.takesRecords(headerStart, pageBytes)) {
        table.addEmpty();
        nextFrame();
        continue;
      }
      long before = headerStart + PagedLayout.headBytes(count + 1) + (long) bufferedBytes;
      if (before + size <= pageBytes) {
        if (count == 0) {
          this.first = first;
        }
        System.arraycopy(bytes, from, buffered, bufferedBytes, length);
        sizes[count] = (int) size;
        fragments[count] = fragment;
        bufferedBytes += (int) size;
        count++;
        return;
      }
      long room = pageBytes - before;
      if (count == 0 || room >= pageBytes / PagedLayout.CROSSING_ROOM_DIVISOR) {
        if (count == 0) {
          this.first = first;
        }
        writeFrame(bytes, from, length, fragment);
        return;
      }
      writeFrame(null, 0, 0, 0);
      nextFrame();
    }
  }

  /** Moves to the next frame, whose head will start at its beginning. */
  private void nextFrame() {
    frameBase += pageBytes;
    headerStart = 0;
    nextStart = frameBase;
  }

  /**
   * Writes the current frame's head and buffered records, then, when {@code crossing} is not null,
   * the record {@code crossing[from, from + length)} that runs past the frame's end.
   */
  private void writeFrame(byte[] crossing, int from, int length, int fragment) throws IOException {
    int n = count + (crossing == null ? 0 : 1);
    pad(nextStart);
    int headBytes = PagedLayout.headBytes(n);
    int offset = headerStart + headBytes;
    for (int i = 0; i < n; i++) {
      PagedLayout.writeEntry(
          PagedLayout.entry(i < count ? fragments[i] : fragment, offset), head, PagedLayout.HEAD_CHECK_BYTES + PagedLayout.ENTRY_BYTES * i);
      if (i < count) {
        offset += sizes[i];
      }
    }
    long headOffset = frameBase + headerStart;
    RecordChecksum.write(
        PagedLayout.headCheck(headChecksum, head, PagedLayout.HEAD_CHECK_BYTES, headBytes - PagedLayout.HEAD_CHECK_BYTES, headOffset + salt), head, 0);
    out.write(head, 0, headBytes);
    written += headBytes;
    int at = 0;
    for (int i = 0; i < count; i++) {
      int recordLength = sizes[i] - checkBytes;
      starts.start(written);
      if (checkBytes > 0) {
        RecordChecksum.write(checksum.of(buffered, at, recordLength, written + salt), buffered, at + recordLength);
      }
      written += sizes[i];
      at += sizes[i];
    }
    out.write(buffered, 0, bufferedBytes);
    if (crossing != null) {
      starts.start(written);
      out.write(crossing, from, length);
      if (checkBytes > 0) {
        RecordChecksum.write(checksum.of(crossing, from, length, written + salt), check, 0);
        out.write(check, 0, checkBytes);
      }
      written += (long) length + checkBytes;
    }
    table.add(this.first, n, headerStart, (int) Math.min(pageBytes, written - frameBase));
    count = 0;
    bufferedBytes = 0;
    if (crossing != null) {
      // The frames the record covers whole hold no record; the one it ends in starts its head after it.
      long end = written;
      while (frameBase + 2L * pageBytes <= end) {
        frameBase += pageBytes;
        table.addEmpty();
      }
      frameBase += pageBytes;
      headerStart = (int) (end - frameBase);
      nextStart = end;
    } else {
      nextStart = written;
    }
  }

  private void pad(long to) throws IOException {
    while (written < to) {
      int n = (int) Math.min(to - written, zeros.length);
      out.write(zeros, 0, n);
      written += n;
    }
  }

  /** Writes the last frame; returns the payload's length. Use after the last {@link #add}. */
  long finish() throws IOException {
    if (!finished) {
      if (count > 0) {
        writeFrame(null, 0, 0, 0);
      }
      finished = true;
      table.finish(written);
    }
    return written;
  }

  /** The table of the frames written, complete after {@link #finish}. */
  PageTable.Builder table() {
    return table;
  }
}
