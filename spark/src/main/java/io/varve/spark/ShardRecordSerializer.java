package io.varve.spark;

import io.varve.core.store.RecordFormat;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.StreamCorruptedException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.spark.serializer.DeserializationStream;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.serializer.SerializerInstance;
import scala.reflect.ClassTag;

/**
 * The serializer of the writer's shuffle, whose records are (shard, record array) pairs ({@link
 * RowRouting}): each pair is {@code shard:varint length:varint record[length]} (varints as in
 * {@link ShuffleRecord}), with no class names, no object references and no per-record state, which
 * made a build faster than Kryo's (and Java serialization's) object streams. It only writes keys
 * and values as the shuffle does; other uses are refused. Serializable for Spark; its streams are
 * not thread-safe (Spark gives each its own thread).
 */
final class ShardRecordSerializer extends Serializer implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final int BUFFER_BYTES = 32 << 10;

  @Override
  public SerializerInstance newInstance() {
    return new Instance();
  }

  private static UnsupportedOperationException onlyPairs() {
    return new UnsupportedOperationException("the varve shuffle's serializer writes (shard, record) pairs only");
  }

  private static final class Instance extends SerializerInstance {
    @Override
    public <T> ByteBuffer serialize(T t, ClassTag<T> tag) {
      throw onlyPairs();
    }

    @Override
    public <T> T deserialize(ByteBuffer bytes, ClassTag<T> tag) {
      throw onlyPairs();
    }

    @Override
    public <T> T deserialize(ByteBuffer bytes, ClassLoader loader, ClassTag<T> tag) {
      throw onlyPairs();
    }

    @Override
    public SerializationStream serializeStream(OutputStream out) {
      return new PairOutput(out);
    }

    @Override
    public DeserializationStream deserializeStream(InputStream in) {
      return new PairInput(in);
    }
  }

  /** Writes a key (the shard) and then its value (the record), as the shuffle writer calls it. */
  private static final class PairOutput extends SerializationStream {
    private final OutputStream out;
    private final byte[] header = new byte[2 * ShuffleRecord.MAX_VARINT_BYTES];
    private int shard;

    PairOutput(OutputStream out) {
      this.out = out;
    }

    @Override
    public <T> SerializationStream writeKey(T key, ClassTag<T> tag) {
      shard = (Integer) key;
      return this;
    }

    @Override
    public <T> SerializationStream writeValue(T value, ClassTag<T> tag) {
      byte[] record = (byte[]) value;
      int headerLength = RecordFormat.writeVarint(header, RecordFormat.writeVarint(header, 0, shard), record.length);
      try {
        out.write(header, 0, headerLength);
        out.write(record);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return this;
    }

    @Override
    public <T> SerializationStream writeObject(T t, ClassTag<T> tag) {
      throw onlyPairs();
    }

    @Override
    public void flush() {
      try {
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {
      try {
        out.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * Reads what {@link PairOutput} wrote, through a buffer of its own (Spark's streams cost a call
   * per read); the end of the stream before a key is an {@link EOFException}, which ends Spark's
   * key-value iterator.
   */
  private static final class PairInput extends DeserializationStream {
    private final InputStream in;
    private final byte[] buffer = new byte[BUFFER_BYTES];
    private int position;
    private int limit;
    private int length;

    PairInput(InputStream in) {
      this.in = in;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T readKey(ClassTag<T> tag) {
      if (position == limit && !fill()) {
        throw sneaky(new EOFException()); // the end, between two pairs: Spark's iterator stops here
      }
      Integer shard = readVarint();
      length = readVarint();
      return (T) shard;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T readValue(ClassTag<T> tag) {
      byte[] record = new byte[length];
      int copied = 0;
      while (copied < length) {
        if (position == limit && !fill()) {
          throw cut("inside a record");
        }
        int chunk = Math.min(length - copied, limit - position);
        System.arraycopy(buffer, position, record, copied, chunk);
        position += chunk;
        copied += chunk;
      }
      return (T) record;
    }

    private int readVarint() {
      int value = 0;
      for (int shift = 0; shift < 7 * ShuffleRecord.MAX_VARINT_BYTES; shift += 7) {
        if (position == limit && !fill()) {
          throw cut("inside a record's header");
        }
        byte next = buffer[position++];
        value |= (next & 0x7F) << shift;
        if (next >= 0) {
          if (value < 0) {
            break;
          }
          return value;
        }
      }
      throw new UncheckedIOException(new StreamCorruptedException("a shuffle block of the varve writer holds a malformed header"));
    }

    /** Reads more into the empty buffer; false at the end of the stream. */
    private boolean fill() {
      try {
        int read = in.read(buffer, 0, buffer.length);
        position = 0;
        limit = Math.max(read, 0);
        return read > 0;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private static UncheckedIOException cut(String where) {
      return new UncheckedIOException(new EOFException("a shuffle block of the varve writer ends " + where));
    }

    @Override
    public <T> T readObject(ClassTag<T> tag) {
      throw onlyPairs();
    }

    @Override
    public void close() {
      try {
        in.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * Spark's iterator ends at an {@link EOFException} thrown as is (it is a Scala method, which
   * declares none); Java must smuggle it past the compiler.
   */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneaky(Throwable e) throws E {
    throw (E) e;
  }
}
