package io.varve.bcms;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The page layout's body checksum (the XOR of each page's share, {@link SketchFile#pageChecksum}),
 * kept current as a buffered sketch rewrites pages: the share of a page read for a change is
 * replaced by that of the page written, so that finishing the file never reads all its pages.
 *
 * <p>Not thread-safe: its sketch's write lock guards it.
 */
final class PagesChecksum {
  private final CRC32C crc = new CRC32C();
  private int value;
  private int loadedShare;

  /** The checksum of the file {@code header} opened: all pages zero in a new file, else as recorded. */
  PagesChecksum(SketchFile.Header header) {
    this.value = header.state() == SketchFile.STATE_OPEN
        ? SketchFile.zeroPagesChecksum(header.pageCount(), header.parameters().pageSize())
        : header.bodyCrc();
  }

  /** Remembers the share of page {@code pageIndex}, just read for a change. */
  void loaded(long pageIndex, ByteBuffer page) {
    loadedShare = share(pageIndex, page);
  }

  /** The share of page {@code pageIndex} as {@code page} holds it (whose position and limit are cleared). */
  int share(long pageIndex, ByteBuffer page) {
    crc.reset();
    crc.update(page.clear());
    page.clear();
    return SketchFile.pageChecksum(pageIndex, (int) crc.getValue());
  }

  /** Replaces the loaded page's share by {@code writtenShare}, once that page is written. */
  void written(int writtenShare) {
    value ^= loadedShare ^ writtenShare;
  }

  int value() {
    return value;
  }
}
