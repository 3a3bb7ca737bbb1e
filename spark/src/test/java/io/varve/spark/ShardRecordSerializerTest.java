package io.varve.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.serializer.DeserializationStream;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.Test;
import scala.Tuple2;
import scala.collection.Iterator;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/** The shuffle's (shard, record) streams, as Spark's shuffle writer and reader drive them, against a list. */
class ShardRecordSerializerTest {
  private static final ClassTag<Object> ANY = ClassTag$.MODULE$.Any();

  private static byte[] write(List<Tuple2<Integer, byte[]>> pairs) {
    SerializerInstance serializer = new ShardRecordSerializer().newInstance();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    SerializationStream out = serializer.serializeStream(bytes);
    for (Tuple2<Integer, byte[]> pair : pairs) {
      out.writeKey(pair._1(), ANY);
      out.writeValue(pair._2(), ANY);
    }
    out.flush();
    out.close();
    return bytes.toByteArray();
  }

  private static List<Tuple2<Object, Object>> read(byte[] bytes) {
    return read(new ByteArrayInputStream(bytes));
  }

  private static List<Tuple2<Object, Object>> read(InputStream stream) {
    DeserializationStream in = new ShardRecordSerializer().newInstance().deserializeStream(stream);
    List<Tuple2<Object, Object>> pairs = new ArrayList<>();
    Iterator<Tuple2<Object, Object>> iterator = in.asKeyValueIterator();
    while (iterator.hasNext()) {
      pairs.add(iterator.next());
    }
    return pairs;
  }

  @Test
  void pairsComeBackInOrderWithEmptyAndLargeRecords() {
    long seed = 0x5E41L;
    System.out.println("ShardRecordSerializerTest seed " + Long.toHexString(seed));
    SplittableRandom random = new SplittableRandom(seed);
    List<Tuple2<Integer, byte[]>> pairs = new ArrayList<>();
    pairs.add(new Tuple2<>(0, new byte[0]));
    pairs.add(new Tuple2<>(65_535, new byte[1 << 20]));
    for (int i = 0; i < 10_000; i++) {
      byte[] record = new byte[random.nextInt(200)];
      random.nextBytes(record);
      pairs.add(new Tuple2<>(random.nextInt(65_536), record));
    }
    byte[] written = write(pairs);
    assertSame(pairs, read(written));
    assertSame(pairs, read(new TrickleInputStream(written, 7)));
    assertTrue(read(new byte[0]).isEmpty(), "an empty block holds no pair");
  }

  private static void assertSame(List<Tuple2<Integer, byte[]>> pairs, List<Tuple2<Object, Object>> back) {
    assertEquals(pairs.size(), back.size());
    for (int i = 0; i < pairs.size(); i++) {
      assertEquals(pairs.get(i)._1(), back.get(i)._1(), "shard of pair " + i);
      assertArrayEquals(pairs.get(i)._2(), (byte[]) back.get(i)._2(), "record of pair " + i);
    }
  }

  /** Hands out at most {@code most} bytes a read, as a decompressing stream may. */
  private static final class TrickleInputStream extends ByteArrayInputStream {
    private final int most;

    TrickleInputStream(byte[] bytes, int most) {
      super(bytes);
      this.most = most;
    }

    @Override
    public synchronized int read(byte[] target, int offset, int length) {
      return super.read(target, offset, Math.min(length, most));
    }
  }

  @Test
  void aMalformedHeaderIsAnError() {
    byte[] endless = new byte[12];
    Arrays.fill(endless, (byte) 0xFF);
    assertThrows(UncheckedIOException.class, () -> read(endless));
    byte[] tooLong = {0, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F};
    assertThrows(UncheckedIOException.class, () -> read(tooLong), "a length past Integer.MAX_VALUE");
  }

  @Test
  void aBlockCutInsideAPairIsAnErrorNotAnEnd() {
    byte[] bytes = write(List.of(new Tuple2<>(3, new byte[] {1, 2, 3}), new Tuple2<>(300, new byte[200])));
    int firstPair = write(List.of(new Tuple2<>(3, new byte[] {1, 2, 3}))).length;
    for (int cut = 1; cut < bytes.length; cut++) {
      if (cut == firstPair) {
        continue; // between the two pairs: a clean end
      }
      byte[] cutBytes = Arrays.copyOf(bytes, cut);
      assertThrows(UncheckedIOException.class, () -> read(cutBytes), "cut at " + cut);
    }
    assertEquals(1, read(Arrays.copyOf(bytes, firstPair)).size());
  }

  @Test
  void otherUsesAreRefused() {
    SerializerInstance serializer = new ShardRecordSerializer().newInstance();
    assertThrows(UnsupportedOperationException.class, () -> serializer.serialize("x", ANY));
    SerializationStream out = serializer.serializeStream(new ByteArrayOutputStream());
    assertThrows(UnsupportedOperationException.class, () -> out.writeObject("x", ANY));
    assertFalse(new ShardRecordSerializer().supportsRelocationOfSerializedObjects());
  }
}
