package io.varve.benchmarks.peers;

import com.spotify.sparkey.CompressionType;
import com.spotify.sparkey.Sparkey;
import com.spotify.sparkey.SparkeyReader;
import com.spotify.sparkey.SparkeyWriter;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Spotify's Sparkey: an append-only log plus a hash index file, both memory-mapped; no
 * compression. The batch is appended to the log and the hash index rewritten, Sparkey's own
 * incremental path. Stateless; thread-safe.
 */
final class SparkeyPeer implements Peer {
  private static final String FILE = "store.spi";

  @Override
  public String name() {
    return "Sparkey";
  }

  @Override
  public void build(RecordSet records, Path dir) throws Exception {
    Files.createDirectories(dir);
    try (SparkeyWriter writer = Sparkey.createNew(indexFile(dir), CompressionType.NONE, 0)) {
      records.forEach(writer::put);
      writer.writeHash();
    }
  }

  @Override
  public void prepareUpdate(Path base, Path out) throws Exception {
    Files.createDirectories(out);
    for (File file : List.of(indexFile(base), Sparkey.getLogFile(indexFile(base)))) {
      Files.copy(file.toPath(), out.resolve(file.getName()));
    }
  }

  @Override
  public UpdateMethod updateMethod() {
    return UpdateMethod.INCREMENTAL;
  }

  @Override
  public void update(Dataset dataset, Path base, Path out) throws Exception {
    try (SparkeyWriter writer = Sparkey.append(indexFile(out))) {
      dataset.batch().forEach(writer::put);
      writer.writeHash();
    }
  }

  @Override
  public Reader open(Path dir) throws Exception {
    File file = indexFile(dir);
    SparkeyReader reader = Sparkey.open(file);
    return new Reader() {
      @Override
      public byte[] get(byte[] key) throws Exception {
        return reader.getAsByteArray(key);
      }


      @Override
      public long indexBytes() {
        return file.length();
      }

      @Override
      public List<FileRange> pageCacheIndex() {
        return List.of(new FileRange(file.toPath(), 0, file.length()));
      }

      @Override
      public void close() {
        reader.close();
      }
    };
  }

  private static File indexFile(Path dir) {
    return dir.resolve(FILE).toFile();
  }
}
