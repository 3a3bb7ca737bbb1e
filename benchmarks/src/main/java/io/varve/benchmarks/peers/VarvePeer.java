package io.varve.benchmarks.peers;

import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreMerger;
import io.varve.reader.Store;
import java.nio.file.Path;

/**
 * Varve with its defaults: {@link StoreBuilder} (256 MiB budget, g = 64, skip levels 3), {@link
 * StoreMerger} for the batch, {@link Store#get}. Stateless; thread-safe.
 */
final class VarvePeer implements Peer {
  @Override
  public String name() {
    return "Varve";
  }

  @Override
  public void build(RecordSet records, Path dir) throws Exception {
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
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
    Store store = Store.open(dir);
    return new Reader() {
      @Override
      public byte[] get(byte[] key) {
        return store.get(key);
      }


      @Override
      public long indexBytes() {
        return store.stats().memoryBytes();
      }

      @Override
      public void close() {
        store.close();
      }
    };
  }
}
