package io.varve.benchmarks.peers;

import com.linkedin.paldb.api.PalDB;
import com.linkedin.paldb.api.StoreReader;
import com.linkedin.paldb.api.StoreWriter;
import java.io.File;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * LinkedIn's PalDB with its defaults: one file of per-key-length hash tables (the index, keys
 * included) and records, memory-mapped. PalDB cannot add to a store, so the batch is a full
 * rebuild. PalDB readers are not thread-safe: each thread opens its own. Stateless; thread-safe.
 */
final class PalDbPeer implements Peer {
  private static final String FILE = "store.paldb";

  @Override
  public String name() {
    return "PalDB";
  }

  @Override
  public void build(RecordSet records, Path dir) throws Exception {
    Files.createDirectories(dir);
    StoreWriter writer = PalDB.createWriter(dir.resolve(FILE).toFile());
    try {
      records.forEach((key, value) -> writer.put((Object) key, (Object) value));
    } finally {
      writer.close();
    }
  }

  @Override
  public Reader open(Path dir) {
    return new PalDbReader(dir.resolve(FILE).toFile());
  }

  private static final class PalDbReader implements Reader {
    private final File file;
    private final StoreReader reader;

    PalDbReader(File file) {
      this.file = file;
      this.reader = PalDB.createReader(file);
    }

    @Override
    public byte[] get(byte[] key) {
      return reader.get(key);
    }

    @Override
    public Reader forAnotherThread() {
      return new PalDbReader(file);
    }

    @Override
    public long indexBytes() {
      return indexEnd() - indexStart();
    }

    @Override
    public List<FileRange> pageCacheIndex() {
      return List.of(new FileRange(file.toPath(), indexStart(), indexEnd() - indexStart()));
    }

    /** The index section's start: PalDB keeps it in a private field of its storage reader. */
    private long indexStart() {
      return ((Number) storageField("indexOffset")).longValue();
    }

    private long indexEnd() {
      return ((Number) storageField("dataOffset")).longValue();
    }

    private Object storageField(String name) {
      try {
        Field storageField = reader.getClass().getDeclaredField("storage");
        storageField.setAccessible(true);
        Object storage = storageField.get(reader);
        Field field = storage.getClass().getDeclaredField(name);
        field.setAccessible(true);
        return field.get(storage);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("PalDB " + "internals changed: cannot read StorageReader." + name, e);
      }
    }

    @Override
    public void close() {
      reader.close();
    }
  }
}
