package io.varve.reader;

/**
 * How an open {@link Store} reaches its records, the data file. The index and the offsets are on
 * the Java heap either way (a few bits per record); this choice is about the records themselves.
 * Immutable; thread-safe.
 */
public enum DataAccess {
  /**
   * The data file is memory-mapped and read on demand, one 4 KiB page per miss (the mapping is
   * advised random access, so that a cold lookup reads one page, not the kernel's read-ahead
   * window). The store costs no memory beyond the page cache, which it shares with every process
   * that opens the same files, and it may be larger than memory. The default ({@link
   * Store#open(java.nio.file.Path)}).
   */
  MAPPED,

  /**
   * The data file is copied into memory outside the Java heap when the store opens ({@link
   * Store#load}), advised to be backed by 2 MiB transparent huge pages. A lookup then never waits
   * on the disk, and its record read costs one TLB entry per 2 MiB of data instead of one per
   * 4 KiB (the README's "Mapped or loaded" gives the measured gain).
   * The copy costs memory the size of the data file, held by this process alone (the page cache
   * may keep the file too, until the kernel needs the memory), and opening reads the whole file.
   * Huge pages need Linux with transparent huge pages set to {@code madvise} or {@code always}
   * ({@code /sys/kernel/mm/transparent_hugepage/enabled}); elsewhere the copy is in ordinary pages
   * and still spares lookups the disk.
   */
  LOADED
}
