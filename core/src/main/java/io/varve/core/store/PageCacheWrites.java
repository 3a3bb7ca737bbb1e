package io.varve.core.store;

/**
 * How a {@link StoreFileWriter} hands a file to the kernel, which decides the size of the
 * page-cache folios that hold it on the writing host, and so whether a reader's memory mapping
 * there gets huge pages.
 *
 * <p>Measured on a 2-core Firecracker VM (Linux 6.18, ext4 with large folios):
 *
 * <ul>
 *   <li>{@link #HUGE_PAGES}: a reader on the same host maps the file with 2 MiB TLB entries, and
 *       warm lookups on 10^7 records of 8 + 8 bytes took 0.92 of the time they took after {@link
 *       #SMALL} writes.
 *   <li>But each write then takes a fresh 2 MiB block of memory. On a VM that hands free memory
 *       back to its host (virtio-balloon free page reporting, which reports blocks of 2 MiB and
 *       more), such a block is backed again on first touch: 1 GiB written in 2 MiB pieces took
 *       0.4–2.8 s, almost all of it in the kernel's copy into the new folios, against 0.3–0.4 s in
 *       64 KiB pieces; written again at once, before the freed blocks were reported, 0.26 s.
 *       Builds of 10^7 records of 20 + 100 bytes ran at 1.06–1.21 M records/s against 1.45–1.60
 *       (three alternating runs), and of 10^6 records of 20 + 1000 bytes at 155–171 k/s against
 *       238–263 k/s. Small writes pay the same once the VM's small free blocks run out (a later
 *       build with 64 KiB writes spent 28 % of its CPU in that copy), but less often.
 * </ul>
 *
 * Only stores served from the page cache of the host that writes them gain anything: a store
 * copied to its servers is cached as the copying tool writes it (or see {@code Store.load}).
 * Stateless; thread-safe.
 */
public enum PageCacheWrites {
  /** Writes of 64 KiB: small folios, cheap to allocate. */
  SMALL(1 << 16),
  /**
   * Writes of 2 MiB at offsets that are multiples of 2 MiB: where the file system caches large
   * folios (ext4 since Linux 6.16, XFS since 5.18), each is one huge-page folio.
   */
  HUGE_PAGES(2 << 20),
  /**
   * The first 64 MiB of a file as {@link #SMALL}, the rest past the page cache ({@code O_DIRECT}),
   * in writes of 1 MiB from a thread of the writer's own: the kernel copies nothing and no dirty
   * page waits to be written back, so a large file is written at the speed of the device, not of
   * the copy into new page-cache memory. The file is then mostly not in this host's page cache.
   * Where the file system or platform does not take such writes (tmpfs before Linux 6.6, macOS),
   * all goes through the page cache as {@link #SMALL}. The default for builds' data files (merges
   * default to {@link #SMALL}).
   */
  UNCACHED(1 << 16);

  private final int chunkBytes;

  PageCacheWrites(int chunkBytes) {
    this.chunkBytes = chunkBytes;
  }

  /**
   * The size of each write through the page cache, and the alignment of its offset in the file;
   * for {@link #UNCACHED}, of the batches handed to its writer.
   */
  public int chunkBytes() {
    return chunkBytes;
  }
}
