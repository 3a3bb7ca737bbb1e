package io.varve.benchmarks.peers;

import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreMerger;
import io.varve.core.store.PagedParameters;
import io.varve.reader.DataAccess;
import io.varve.reader.Store;
import java.nio.file.Path;
import java.util.List;

/**
 * Varve with its defaults: {@link StoreBuilder} (256 MiB budget; pages for variable-size records, a
 * blocked index for fixed-size ones), {@link StoreMerger} for the batch, {@link Store#get} on a store opened with {@link Store#open} ({@link
 * #MAPPED}, "Varve") or {@link Store#load} ({@link #LOADED}, "Varve-loaded", measured warm on the
 * files "Varve" built, as its {@link #warmVariants}). Immutable; thread-safe.
 */
final class VarvePeer implements Peer {
  /** The data file loaded into memory ({@link Store#load}). */
  static final VarvePeer LOADED = new VarvePeer(DataAccess.LOADED, "Varve-loaded", List.of(), false);
  /** Varve's default: the data file memory-mapped. */
  static final VarvePeer MAPPED = new VarvePeer(DataAccess.MAPPED, "Varve", List.of(LOADED), false);
  /**
   * Paged stores asked for explicitly ({@code PagedParameters}): what "Varve" builds for
   * variable-size records since pages became the default; kept so that runs before and after compare.
   */
  static final VarvePeer PAGED = new VarvePeer(DataAccess.MAPPED, "Varve-paged", List.of(), true);

  private final DataAccess access;
  private final String name;
  private final List<Peer> warmVariants;
  private final boolean paged;

  private VarvePeer(DataAccess access, String name, List<Peer> warmVariants, boolean paged) {
    this.access = access;
    this.name = name;
    this.warmVariants = warmVariants;
    this.paged = paged;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<Peer> warmVariants() {
    return warmVariants;
  }

  @Override
  public void build(RecordSet records, Path dir) throws Exception {
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      if (paged) {
        builder.indexParameters(PagedParameters.INSTANCE);
      }
      records.forEach(builder::put);
      builder.build();
    }
  }

  @Override
  public UpdateMethod updateMethod() {
    return UpdateMethod.INCREMENTAL;
  }

  @Override
  public void update(Dataset dataset, Path base, Path out) throws Exception {
    try (StoreMerger merger = StoreMerger.create(out).base(base)) {
      dataset.batch().forEach(merger::put);
      merger.merge();
    }
  }

  @Override
  public Reader open(Path dir) throws Exception {
    Store store = Store.open(dir, access);
    return new Reader() {
      @Override
      public byte[] get(byte[] key) {
        return store.get(key);
      }


      /** The heap's index and offsets, and a loaded store's records. */
      @Override
      public long indexBytes() {
        return store.stats().memoryBytes() + store.stats().loadedBytes();
      }

      @Override
      public void close() {
        store.close();
      }
    };
  }
}
