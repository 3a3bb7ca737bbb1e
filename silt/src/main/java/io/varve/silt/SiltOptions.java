package io.varve.silt;

import io.varve.core.cuckoo.CuckooTagTable;

/**
 * How a {@link SiltStore} sizes its log stores, syncs its writes and merges. Immutable;
 * thread-safe. Start from {@link #DEFAULTS} or {@link #builder()}.
 *
 * <pre>{@code
 * SiltOptions options = SiltOptions.builder().logStoreEntries(1 << 20).syncEveryWrite(true).build();
 * }</pre>
 *
 * @param logStoreEntries entries a log store's table is sized for (a power of two slots at least
 *     this many; it takes about 95 % of them before it is frozen). A table takes six bytes of heap
 *     a slot, and a store holds up to four at once: {@link SiltStore#open(java.nio.file.Path,
 *     SiltOptions)} refuses a size whose four tables the heap cannot hold
 * @param maxLogBytes the size at which a log store is frozen, at most 2^31 - 1
 * @param syncEveryWrite whether every put and delete is forced to the device before it returns;
 *     otherwise writes are durable once {@link SiltStore#sync()} returns
 * @param hashStoresPerMerge hash stores that start a background merge into the sorted store
 *     (SILT's H: more of them cost two bytes of memory per entry each and a little read
 *     amplification, and save rewrites of the sorted store)
 * @param backgroundMerges whether frozen log stores are converted and merged by themselves (on
 *     two threads, so that conversions and writes go on during a merge); otherwise only {@link SiltStore#convertNow()} and {@link SiltStore#mergeNow()} do it
 * @param mergeMemoryBudget bytes a merge may sort in memory before it spills. A merge also holds
 *     the new sorted store's index while it builds it beside the old one's, so a heap sized for
 *     {@link SiltTuning#memoryBytesPerEntry} needs this budget and one more sorted-store index on
 *     top while a merge runs. A conversion, which may run at the same time, holds a quarter of
 *     it, at most 16 MiB, and spills the rest of a log's records to a scratch directory
 * @param dropDamagedLogTail whether opening drops a damaged record of the newest log together
 *     with every record after it, instead of refusing the store. A power loss can keep later pages
 *     of writes not yet synced and lose earlier ones (the kernel writes pages back in no set
 *     order): the hole reads as damage with records after it. Synced writes lie before any such
 *     hole; damage the device did to them would drop them too, which is why this is not the
 *     default. Likewise a newest log shorter than its last sync reached (an older copy put back:
 *     {@link LogShorterThanSyncException} without this option) opens with what it holds, and
 *     the sync mark follows it. A drop is logged (System.Logger, WARNING) with its offset and bytes
 */
public record SiltOptions(
    int logStoreEntries,
    long maxLogBytes,
    boolean syncEveryWrite,
    int hashStoresPerMerge,
    boolean backgroundMerges,
    long mergeMemoryBudget,
    boolean dropDamagedLogTail) {
  /** 128 Ki-entry log stores (SILT's), logs of up to 256 MiB, syncs on call, a merge per 8 hash stores, damaged logs refused. */
  public static final SiltOptions DEFAULTS = new SiltOptions(1 << 17, 256L << 20, false, 8, true, 64L << 20, false);

  /** The options before {@code dropDamagedLogTail} existed: damaged logs are refused. */
  public SiltOptions(
      int logStoreEntries, long maxLogBytes, boolean syncEveryWrite, int hashStoresPerMerge, boolean backgroundMerges, long mergeMemoryBudget) {
    this(logStoreEntries, maxLogBytes, syncEveryWrite, hashStoresPerMerge, backgroundMerges, mergeMemoryBudget, false);
  }

  /** @throws IllegalArgumentException when a value is out of range */
  public SiltOptions {
    if (logStoreEntries < CuckooTagTable.WAYS || logStoreEntries > 1 << 28) {
      throw new IllegalArgumentException("log store entries must be 4 to 2^28, not " + logStoreEntries);
    }
    if (maxLogBytes < 4096 || maxLogBytes > SiltLog.MAX_BYTES) {
      throw new IllegalArgumentException("log bytes must be 4 KiB to 2^31 - 1, not " + maxLogBytes);
    }
    if (hashStoresPerMerge < 1) {
      throw new IllegalArgumentException("hash stores per merge must be at least 1, not " + hashStoresPerMerge);
    }
    if (mergeMemoryBudget < 2L << 20) {
      throw new IllegalArgumentException("the merge memory budget must be at least 2 MiB, not " + mergeMemoryBudget);
    }
  }

  /** Buckets of a new log store's table. */
  int logTableBuckets() {
    return CuckooTagTable.bucketsFor(logStoreEntries, 1.0);
  }

  /** Bytes of records a conversion holds in memory: a quarter of the merge budget, at most 16 MiB. */
  long conversionMemory() {
    return Math.min(16L << 20, mergeMemoryBudget / 4);
  }

  public static Builder builder() {
    return DEFAULTS.toBuilder();
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Sets options one by one; {@link #build()} checks them. Not thread-safe. */
  public static final class Builder {
    private int logStoreEntries;
    private long maxLogBytes;
    private boolean syncEveryWrite;
    private int hashStoresPerMerge;
    private boolean backgroundMerges;
    private long mergeMemoryBudget;
    private boolean dropDamagedLogTail;

    private Builder(SiltOptions o) {
      logStoreEntries = o.logStoreEntries;
      maxLogBytes = o.maxLogBytes;
      syncEveryWrite = o.syncEveryWrite;
      hashStoresPerMerge = o.hashStoresPerMerge;
      backgroundMerges = o.backgroundMerges;
      mergeMemoryBudget = o.mergeMemoryBudget;
      dropDamagedLogTail = o.dropDamagedLogTail;
    }

    public Builder logStoreEntries(int entries) {
      this.logStoreEntries = entries;
      return this;
    }

    public Builder maxLogBytes(long bytes) {
      this.maxLogBytes = bytes;
      return this;
    }

    public Builder syncEveryWrite(boolean sync) {
      this.syncEveryWrite = sync;
      return this;
    }

    public Builder hashStoresPerMerge(int stores) {
      this.hashStoresPerMerge = stores;
      return this;
    }

    public Builder backgroundMerges(boolean background) {
      this.backgroundMerges = background;
      return this;
    }

    public Builder mergeMemoryBudget(long bytes) {
      this.mergeMemoryBudget = bytes;
      return this;
    }

    public Builder dropDamagedLogTail(boolean drop) {
      this.dropDamagedLogTail = drop;
      return this;
    }

    public SiltOptions build() {
      return new SiltOptions(
          logStoreEntries, maxLogBytes, syncEveryWrite, hashStoresPerMerge, backgroundMerges, mergeMemoryBudget, dropDamagedLogTail);
    }
  }
}
