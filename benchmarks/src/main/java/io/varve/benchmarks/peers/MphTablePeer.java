package io.varve.benchmarks.peers;

import com.indeed.mph.KeyValidator;
import com.indeed.mph.LinearDiophantineEquation;
import com.indeed.mph.TableConfig;
import com.indeed.mph.TableReader;
import com.indeed.mph.TableWriter;
import com.indeed.mph.serializers.AbstractSmartSerializer;
import com.indeed.util.core.Pair;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.stream.Stream;

/**
 * Indeed's mph-table: a GOV minimal perfect hash (sux4j) to a record slot, offsets (automatic:
 * fixed, indexed or selected) and records with explicit keys, so that absent keys are detected,
 * as Varve's are. Fixed-size keys and values use fixed-width serializers, which lets mph-table drop
 * the offsets. Cannot add to a table: the batch is a full rebuild. Stateless; thread-safe.
 */
final class MphTablePeer implements Peer {
  /** The JVM options mph-table's memory mapping (Indeed util-mmap) needs on JDK 17+. */
  static final String REQUIRED_JVM_OPTIONS =
      "--add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED "
          + "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED";

  @Override
  public String name() {
    return "mph-table";
  }

  /** Fails with the options to add, rather than with util-mmap's ExceptionInInitializerError. */
  private static void requireOpenModules() {
    Module base = Object.class.getModule();
    Module here = MphTablePeer.class.getModule();
    if (!base.isOpen("java.io", here) || !base.isOpen("java.nio", here) || !base.isOpen("sun.nio.ch", here)) {
      throw new IllegalStateException("mph-table needs the JVM options " + REQUIRED_JVM_OPTIONS);
    }
  }

  @Override
  public void build(RecordSet records, Path dir) throws Exception {
    requireOpenModules();
    TableConfig<byte[], byte[]> config =
        new TableConfig<byte[], byte[]>()
            .withKeySerializer(new BytesSerializer(records.fixedKeyBytes()))
            .withValueSerializer(new BytesSerializer(records.fixedValueBytes()))
            .withKeyStorage(TableConfig.KeyStorage.EXPLICIT)
            .withKeyValidator(new BytesKeyValidator());
    TableWriter.write(dir.toFile(), config, () -> pairs(records));
  }

  /** The records in input order as mph-table's pairs (it iterates several times). */
  private static Iterator<Pair<byte[], byte[]>> pairs(RecordSet records) {
    return new Iterator<>() {
      private long next;

      @Override
      public boolean hasNext() {
        return next < records.size();
      }

      @Override
      public Pair<byte[], byte[]> next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        long j = next++;
        return Pair.of(records.key(j), records.value(j));
      }
    };
  }

  @Override
  public Reader open(Path dir) throws Exception {
    requireOpenModules();
    TableReader<byte[], byte[]> reader = TableReader.open(dir.toFile());
    return new Reader() {
      @Override
      public byte[] get(byte[] key) throws Exception {
        return reader.get(key);
      }


      @Override
      public long indexBytes() {
        return indexFiles(dir).stream().mapToLong(f -> f.length()).sum();
      }

      @Override
      public List<FileRange> pageCacheIndex() {
        return indexFiles(dir).stream().map(f -> new FileRange(f.file(), 0, f.length())).toList();
      }

      @Override
      public void close() {
        try {
          reader.close();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    };
  }

  /** Every file of the table except the records. */
  private static List<FileRange> indexFiles(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      List<FileRange> index = new ArrayList<>();
      for (Path file : (Iterable<Path>) files::iterator) {
        if (!file.getFileName().toString().startsWith("data")) {
          index.add(new FileRange(file, 0, Files.size(file)));
        }
      }
      return index;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Compares keys by content (mph-table's default uses {@code equals}: identity for arrays). */
  static final class BytesKeyValidator implements KeyValidator<byte[], byte[]> {
    private static final long serialVersionUID = 1L;

    @Override
    public byte[] validate(byte[] expected, byte[] stored, byte[] value) {
      return Arrays.equals(expected, stored) ? value : null;
    }
  }

  /** Byte arrays of a fixed length (no length prefix) or with a varint length prefix. */
  static final class BytesSerializer extends AbstractSmartSerializer<byte[]> {
    private static final long serialVersionUID = 1L;
    private final int fixedLength;

    BytesSerializer(int fixedLength) {
      this.fixedLength = fixedLength;
    }

    @Override
    public void write(byte[] bytes, DataOutput out) throws IOException {
      if (fixedLength < 0) {
        for (int length = bytes.length; ; length >>>= 7) {
          if (length < 0x80) {
            out.writeByte(length);
            break;
          }
          out.writeByte(length & 0x7F | 0x80);
        }
      } else if (bytes.length != fixedLength) {
        throw new IOException(bytes.length + " bytes where every value has " + fixedLength);
      }
      out.write(bytes);
    }

    @Override
    public byte[] read(DataInput in) throws IOException {
      int length = fixedLength;
      if (length < 0) {
        length = 0;
        for (int shift = 0; ; shift += 7) {
          int b = in.readByte();
          length |= (b & 0x7F) << shift;
          if (b >= 0) {
            break;
          }
        }
      }
      byte[] bytes = new byte[length];
      in.readFully(bytes);
      return bytes;
    }

    @Override
    public LinearDiophantineEquation size() {
      return fixedLength < 0 ? null : LinearDiophantineEquation.constantValue(fixedLength);
    }

    @Override
    public byte[] parseFromString(String text) {
      return text.getBytes(StandardCharsets.UTF_8);
    }
  }
}
