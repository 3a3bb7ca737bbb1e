package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.core.format.CorruptStoreException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A table's state or buffers file put back from an older copy of the same table (a restore of one
 * file, a copy made while it was closed at some earlier time): the open must refuse it, never
 * serve the older copy's values for keys written since, nor lose the entries written since
 * without a word. Before, the older state beside the newer buffers file and log opened (the
 * buffers file, newer than the state, was taken as one whose naming state write a crash had lost)
 * and served 1,295 of 5,000 keys with their older values and 2,085 as absent (BUFFERS_IN_RAM;
 * the other modes alike). A buffers file newer than the state by the one write a crash can lose
 * (the close's state write, which names it) is still loaded.
 */
class BufferHashOlderCopyTest {
  @TempDir Path temp;

  @ParameterizedTest
  @EnumSource(Durability.class)
  void aStateOrBuffersFileOfAnOlderCopyIsRefused(Durability durability) throws Exception {
    long seed = 0xB0FFE25L + durability.ordinal();
    Random random = new Random(seed);
    Path dir = temp.resolve("table");
    Path older = temp.resolve("older");
    Map<ByteBuffer, byte[]> model;
    try (BufferHash table = RandomWrites.smallTable(dir, durability, 4096).open()) {
      model = new HashMap<>(RandomWrites.putFresh(table, random, 3000, 0));
    }
    copyFiles(dir, older);
    try (BufferHash table = RandomWrites.smallTable(dir, durability, 4096).open()) {
      int i = 0;
      for (ByteBuffer key : model.keySet()) {
        if (i++ % 2 == 0) {
          byte[] value = {(byte) i, (byte) (i >>> 8), 7};
          table.put(key.array(), value);
          model.put(key, value);
        }
      }
      model.putAll(RandomWrites.putFresh(table, random, 2000, 0));
    }
    String context = durability + ", seed " + seed;
    for (String file : new String[] {"state", "buffers"}) {
      // The older state beside the newer buffers and log; the newer buffers beside the older state and log.
      Path mixed = temp.resolve("mixed-" + file);
      copyFiles(file.equals("state") ? dir : older, mixed);
      Files.copy((file.equals("state") ? older : dir).resolve(file), mixed.resolve(file), StandardCopyOption.REPLACE_EXISTING);
      try (BufferHash table = RandomWrites.smallTable(mixed, durability, 4096).open()) {
        int stale = 0;
        int lost = 0;
        for (Map.Entry<ByteBuffer, byte[]> entry : model.entrySet()) {
          byte[] value = table.get(entry.getKey().array());
          if (value == null) {
            lost++;
          } else if (!java.util.Arrays.equals(value, entry.getValue())) {
            stale++;
          }
        }
        fail(context + ": " + file + " of another copy: opened, " + stale + " of " + model.size() + " keys with another value, "
            + lost + " absent");
      } catch (CorruptStoreException refused) {
        assertTrue(refused.getMessage().contains("buffers") && refused.getMessage().contains("generation"),
            context + ": " + refused.getMessage());
      }
    }
    // The one lag a crash can leave: the close's state write, which names its buffers file, lost
    // (its slot damaged): the buffers file, newer by that one write, is still loaded.
    Path lostWrite = temp.resolve("lost-state-write");
    copyFiles(dir, lostWrite);
    byte[] state = Files.readAllBytes(lostWrite.resolve("state"));
    StateSlot first = StateSlot.decodeOrNull(state, 0);
    StateSlot second = StateSlot.decodeOrNull(state, StateSlot.BYTES);
    int newest = second != null && (first == null || second.generation() > first.generation()) ? StateSlot.BYTES : 0;
    state[newest + 8] ^= 0x40;
    Files.write(lostWrite.resolve("state"), state);
    for (Path whole : new Path[] {lostWrite, dir}) {
      try (BufferHash table = RandomWrites.smallTable(whole, durability, 4096).open()) {
        for (Map.Entry<ByteBuffer, byte[]> entry : model.entrySet()) {
          assertArrayEquals(entry.getValue(), table.get(entry.getKey().array()), context + ", " + whole.getFileName());
        }
      }
    }
  }

  private static void copyFiles(Path from, Path to) throws Exception {
    Files.createDirectories(to);
    try (var files = Files.list(from)) {
      for (Path file : files.toList()) {
        if (Files.isRegularFile(file) && !file.getFileName().toString().equals("lock")) {
          Files.copy(file, to.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }
}
