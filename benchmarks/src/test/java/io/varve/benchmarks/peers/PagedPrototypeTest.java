package io.varve.benchmarks.peers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The page-addressed prototype against a {@link LinkedHashMap}, at its edges. */
class PagedPrototypeTest {
  @TempDir Path temp;

  private static RecordSet records(Map<ByteBuffer, byte[]> records) {
    byte[][] keys = records.keySet().stream().map(ByteBuffer::array).toArray(byte[][]::new);
    byte[][] values = records.values().toArray(new byte[0][]);
    return new ExplicitRecords(keys, values);
  }

  private void assertHolds(String name, Map<ByteBuffer, byte[]> expected, SplittableRandom random) throws Exception {
    Peer paged = Peers.byName("Paged");
    Path dir = temp.resolve(name);
    paged.build(records(expected), dir);
    try (Peer.Reader reader = paged.open(dir)) {
      for (Map.Entry<ByteBuffer, byte[]> record : expected.entrySet()) {
        assertArrayEquals(record.getValue(), reader.get(record.getKey().array()));
      }
      for (int i = 0; i < 1000; i++) {
        byte[] absent = new byte[random.nextInt(0, 12)];
        random.nextBytes(absent);
        if (!expected.containsKey(ByteBuffer.wrap(absent))) {
          assertNull(reader.get(absent));
        }
      }
      assertEquals(Files.size(dir.resolve("firsts")) - Long.BYTES, reader.indexBytes());
    }
  }

  @Test
  void zeroOneAndManyRecordsOfEverySize() throws Exception {
    long seed = 0x9A6EDL;
    System.out.println("PagedPrototypeTest seed " + seed);
    SplittableRandom random = new SplittableRandom(seed);
    assertHolds("none", Map.of(), random);
    Map<ByteBuffer, byte[]> one = new LinkedHashMap<>();
    one.put(ByteBuffer.wrap(new byte[0]), "the empty key".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertHolds("one", one, random);
    Map<ByteBuffer, byte[]> many = new LinkedHashMap<>(one);
    while (many.size() < 20_000) {
      byte[] key = new byte[random.nextInt(1, 40)];
      random.nextBytes(key);
      byte[] value = new byte[random.nextInt(20) == 0 ? random.nextInt(1000, 4000) : random.nextInt(0, 60)];
      random.nextBytes(value);
      many.put(ByteBuffer.wrap(key), value);
    }
    assertHolds("many", many, random);
  }

  @Test
  void aRecordLargerThanAPageIsRefused() {
    Map<ByteBuffer, byte[]> large = Map.of(ByteBuffer.wrap(new byte[] {1}), new byte[PagedPrototype.PAGE_BYTES]);
    assertThrows(IllegalArgumentException.class, () -> Peers.byName("Paged").build(records(large), temp.resolve("large")));
  }
}
