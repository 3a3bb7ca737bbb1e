package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new table's default hash seed is random, not the public constant 0x5EEDB0FF that let a
 * client craft keys piling into one super table; an explicit seed and an existing table's are kept.
 */
class BufferHashSeedTest {
  private static final long OLD_DEFAULT = 0x5EEDB0FFL;

  @TempDir Path temp;

  private static BufferHashBuilder builder(Path dir) {
    return BufferHash.builder(dir).logBytes(1 << 20).memoryBytes(256 * 1024).entryBytes(24).bufferBytes(4096).superTables(4);
  }

  /** The seed the newest slot of the table's state records. */
  static long seedOf(Path dir) throws Exception {
    byte[] state = Files.readAllBytes(dir.resolve("state"));
    StateSlot a = StateSlot.decodeOrNull(state, 0);
    StateSlot b = StateSlot.decodeOrNull(state, StateSlot.BYTES);
    StateSlot newest = a == null ? b : b == null || a.generation() > b.generation() ? a : b;
    return newest.seed();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void twoNewTablesGetDifferentRandomSeeds() throws Exception {
    builder(temp.resolve("a")).open().close();
    builder(temp.resolve("b")).open().close();
    long a = seedOf(temp.resolve("a"));
    long b = seedOf(temp.resolve("b"));
    System.out.println("BufferHashSeedTest seeds " + Long.toHexString(a) + " " + Long.toHexString(b));
    assertNotEquals(a, b);
    assertNotEquals(OLD_DEFAULT, a);
    assertNotEquals(OLD_DEFAULT, b);
  }

  @Test
  void aReopenedTableKeepsItsSeedAndFindsItsKeys() throws Exception {
    Path dir = temp.resolve("t");
    try (BufferHash table = builder(dir).open()) {
      for (int i = 0; i < 2000; i++) {
        table.put(bytes("key-" + i), bytes("value-" + i));
      }
    }
    long seed = seedOf(dir);
    // A seed given to an existing table is ignored: the state's is the one that placed the keys.
    try (BufferHash table = builder(dir).seed(seed + 1).open()) {
      for (int i = 0; i < 2000; i++) {
        assertArrayEquals(bytes("value-" + i), table.get(bytes("key-" + i)), "key-" + i);
      }
    }
    assertEquals(seed, seedOf(dir));
  }

  @Test
  void anExplicitSeedIsKept() throws Exception {
    Path dir = temp.resolve("t");
    builder(dir).seed(OLD_DEFAULT).open().close();
    assertEquals(OLD_DEFAULT, seedOf(dir));
    builder(dir).open().close();
    assertEquals(OLD_DEFAULT, seedOf(dir));
  }
}
