package io.varve.spark;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.spark.serializer.DeserializationStream;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.serializer.SerializerInstance;
import scala.reflect.ClassTag;

/**
 * The serializer of the writer's shuffle, whose records are (shard, record array) pairs ({@link
 * RowRouting}): each pair is {@code shard:int32 length:int32 record[length]}, with no class names,
 * no object references and no per-record state, which made a build faster than Kryo's (and Java
 * serialization's) object streams. It only writes keys and values as the shuffle does; other uses
 * are refused. Serializable for Spark; its streams are not thread-safe (Spark gives each its own
 * thread).
 */
final class ShardRecordSerializer extends Serializer implements Serializable {
  private static final long serialVersionUID = 1L;

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
    private final byte[] header = new byte[2 * Integer.BYTES];

    PairOutput(OutputStream out) {
      this.out = out;
    }

    @Override
    public <T> SerializationStream writeKey(T key, ClassTag<T> tag) {
      putInt(header, 0, (Integer) key);
      return this;
    }

    @Override
    public <T> SerializationStream writeValue(T value, ClassTag<T> tag) {
      byte[] record = (byte[]) value;
      putInt(header, Integer.BYTES, record.length);
      try {
        out.write(header);
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

    private static void putInt(byte[] target, int at, int value) {
      target[at] = (byte) (value >>> 24);
      target[at + 1] = (byte) (value >>> 16);
      target[at + 2] = (byte) (value >>> 8);
      target[at + 3] = (byte) value;
    }
  }

  /**
   * Reads what {@link PairOutput} wrote; the end of the stream before a key is an {@link
   * EOFException}, which ends Spark's key-value iterator.
   */
  private static final class PairInput extends DeserializationStream {
    private final InputStream in;
    private final byte[] header = new byte[2 * Integer.BYTES];
    private int length;

    PairInput(InputStream in) {
      this.in = in;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T readKey(ClassTag<T> tag) {
      int read;
      try {
        read = in.readNBytes(header, 0, header.length); // one call: byte-wise reads of Spark's streams were a hot spot
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (read == 0) {
        throw sneaky(new EOFException()); // the end, between two pairs: Spark's iterator stops here
      }
      if (read < header.length) {
        throw new UncheckedIOException(new EOFException("a shuffle block of the varve writer ends inside a record's header"));
      }
      Integer shard = intAt(0);
      length = intAt(Integer.BYTES);
      return (T) shard;
    }

    private int intAt(int at) {
      return (header[at] & 0xFF) << 24 | (header[at + 1] & 0xFF) << 16 | (header[at + 2] & 0xFF) << 8 | (header[at + 3] & 0xFF);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T readValue(ClassTag<T> tag) {
      try {
        byte[] record = new byte[length];
        if (in.readNBytes(record, 0, length) < length) {
          throw new EOFException("a shuffle block of the varve writer ends inside a record");
        }
        return (T) record;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
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
