package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.KeyMode;
import io.varve.core.store.StoreFile;
import io.varve.core.testing.FileDamage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fallback for JVMs without Chronicle's options ({@link BufferMemory}): with chunks of 4 KiB,
 * so that records, headers and checksums cross chunk ends, every read of every store shape answers
 * as the reference {@link HashMap} and as the Chronicle path does.
 */
class BufferMemoryTest {
  private static final long SEED = 0xB0FFE12L;
  private static final int SMALL_CHUNKS = 12;

  @TempDir Path temp;

  enum Shape {
    VARIABLE,
    FIXED,
    SPARSE,
    SIGNATURE,
    HUGE_VALUES
  }

  private static Map<ByteBuffer, byte[]> records(Shape shape, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<ByteBuffer, byte[]> records = new HashMap<>();
    int n = shape == Shape.HUGE_VALUES ? 40 : 3000;
    while (records.size() < n) {
      byte[] key = new byte[shape == Shape.FIXED ? 12 : random.nextInt(30)];
      random.nextBytes(key);
      int valueLength = switch (shape) {
        case FIXED -> 20;
        case HUGE_VALUES -> random.nextInt(20_000);
        default -> random.nextInt(300);
      };
      byte[] value = new byte[valueLength];
      random.nextBytes(value);
      records.put(ByteBuffer.wrap(key), value);
    }
    return records;
  }

  private Path build(Shape shape, Map<ByteBuffer, byte[]> records) throws IOException {
    Path dir = temp.resolve(shape.name());
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      if (shape == Shape.SPARSE) {
        builder.pageAlignment(0).sparseIndex(1024);
      }
      if (shape == Shape.SIGNATURE) {
        builder.keyMode(KeyMode.signature(32));
      }
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    return dir;
  }

  private static Store openWithBuffers(Path dir, DataAccess access) throws IOException {
    return StoreOpener.open(dir, true, access, (region, a) -> BufferMemory.open(region, a, SMALL_CHUNKS));
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void everyReadAnswersAsTheReferenceAndAsChronicle(Shape shape) throws IOException {
    long seed = SEED + shape.ordinal();
    System.out.println("BufferMemoryTest " + shape + " seed=" + seed);
    Map<ByteBuffer, byte[]> reference = records(shape, seed);
    Path dir = build(shape, reference);
    for (DataAccess access : DataAccess.values()) {
      try (Store buffers = openWithBuffers(dir, access);
          Store chronicle = Store.open(dir, access)) {
        buffers.verify();
        boolean keys = chronicle.meta().keyMode().keepsKeys();
        for (Map.Entry<ByteBuffer, byte[]> e : reference.entrySet()) {
          byte[] key = e.getKey().array();
          assertArrayEquals(e.getValue(), buffers.get(key), shape + " " + access);
          assertEquals(chronicle.indexOf(key), buffers.indexOf(key));
          byte[] target = new byte[e.getValue().length + 3];
          assertEquals(e.getValue().length, buffers.get(key, 0, key.length, target, 3));
        }
        SplittableRandom absent = new SplittableRandom(seed ^ 1);
        for (int i = 0; i < 2000; i++) {
          byte[] key = new byte[33 + absent.nextInt(5)];
          absent.nextBytes(key);
          if (keys) {
            assertNull(buffers.get(key));
          }
          assertEquals(chronicle.indexOf(key), buffers.indexOf(key));
        }
        List<byte[]> keyList = new ArrayList<>();
        for (ByteBuffer k : reference.keySet()) {
          keyList.add(k.array());
        }
        byte[][] all = keyList.toArray(new byte[0][]);
        byte[][] values = new byte[all.length][];
        buffers.getAll(all, values);
        for (int i = 0; i < all.length; i++) {
          assertArrayEquals(reference.get(ByteBuffer.wrap(all[i])), values[i]);
        }
        StoreCursor walk = buffers.cursor();
        int seen = 0;
        while (walk.next()) {
          assertArrayEquals(chronicle.valueAt(walk.index()), walk.value());
          if (keys) {
            assertArrayEquals(chronicle.keyAt(walk.index()), walk.key());
          }
          seen++;
        }
        assertEquals(reference.size(), seen);
      }
    }
  }

  @Test
  void aDamagedRecordIsReportedAsThroughChronicle() throws IOException {
    Map<ByteBuffer, byte[]> reference = records(Shape.VARIABLE, SEED + 99);
    Path dir = build(Shape.VARIABLE, reference);
    Path data = dir.resolve(StoreFile.DATA.fileName());
    long at = StoreFile.DATA.payloadOffset() + 5000; // inside some record, past the first chunk
    FileDamage.flipBits(data, at, 0x40);
    int damaged = 0;
    try (Store buffers = openWithBuffers(dir, DataAccess.MAPPED)) {
      for (Map.Entry<ByteBuffer, byte[]> e : reference.entrySet()) {
        try {
          assertArrayEquals(e.getValue(), buffers.get(e.getKey().array()));
        } catch (CorruptStoreException expected) {
          assertTrue(expected.getMessage().contains("does not match its checksum"), expected.getMessage());
          damaged++;
        }
      }
      assertThrows(CorruptStoreException.class, buffers::verify);
    }
    assertEquals(1, damaged, "exactly the record holding the flipped byte is refused");
  }

  @Test
  void aClosedStoreRefusesReads() throws IOException {
    Path dir = build(Shape.FIXED, records(Shape.FIXED, SEED + 7));
    Store store = openWithBuffers(dir, DataAccess.MAPPED);
    store.close();
    assertThrows(StoreClosedException.class, () -> store.get(new byte[12]));
  }
}
