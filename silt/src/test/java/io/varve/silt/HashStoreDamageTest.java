package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.files.FileTrees;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every byte of a hash store changed, and every cut of it: the store refuses to open, or every get
 * answers as before or throws {@link CorruptStoreException}; never a wrong value.
 */
class HashStoreDamageTest {
  @TempDir Path temp;

  @Test
  void damageIsReportedNeverServed() throws IOException {
    long seed = 0x4A5D_0001L;
    System.out.println("HashStoreDamageTest seed " + seed);
    Random random = new Random(seed);
    Path pristine = temp.resolve("pristine");
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      keys.add(("hash-damage-" + i).getBytes(StandardCharsets.UTF_8));
    }
    keys.add(new byte[0]);
    try (SiltStore store = SiltTestFiles.open(pristine, SiltStoreModelTest.SMALL)) {
      for (int i = 0; i < 20; i++) {
        write(store, model, keys.get(i), random);
      }
      store.freezeLog();
      store.mergeNow();
      for (int i = 10; i < 41; i++) {
        if (i % 6 == 0) {
          store.delete(keys.get(i - 10));
          model.remove(ByteBuffer.wrap(keys.get(i - 10)));
        } else {
          write(store, model, keys.get(i), random);
        }
      }
      store.freezeLog();
      store.convertNow();
    }
    String hash = SiltManifest.hashName(SiltManifest.read(pristine).hashNumbers().get(0));
    byte[] bytes = Files.readAllBytes(pristine.resolve(hash));
    Path work = temp.resolve("work");
    FileTrees.copyTree(pristine, work);
    int refused = 0;
    int reported = 0;
    int exact = 0;
    List<byte[]> damages = new ArrayList<>();
    for (int at = 0; at < bytes.length; at++) {
      byte[] damaged = bytes.clone();
      damaged[at] ^= (byte) (1 + random.nextInt(255));
      damages.add(damaged);
    }
    for (int length = 0; length < bytes.length; length++) {
      damages.add(Arrays.copyOf(bytes, length));
    }
    for (byte[] damaged : damages) {
      Files.write(work.resolve(hash), damaged);
      SiltStore store;
      try {
        store = SiltTestFiles.open(work, SiltStoreModelTest.SMALL);
      } catch (CorruptStoreException e) {
        refused++;
        continue;
      }
      boolean seen = false;
      try (store) {
        for (byte[] key : keys) {
          byte[] found;
          try {
            found = store.get(key);
          } catch (CorruptStoreException e) {
            seen = true;
            continue;
          }
          byte[] expected = model.get(ByteBuffer.wrap(key));
          String what = "damage " + Arrays.mismatch(bytes, damaged) + ", key " + new String(key, StandardCharsets.UTF_8);
          if (expected == null) {
            assertNull(found, what);
          } else {
            assertArrayEquals(expected, found, what);
          }
        }
      }
      if (seen) {
        reported++;
      } else {
        exact++;
      }
    }
    System.out.println("HashStoreDamageTest: " + damages.size() + " damaged hash stores: " + refused + " refused on open, " + reported
        + " reported by a get, " + exact + " answered every key exactly");
    assertTrue(refused > 0 && reported > 0, "the damage reached both the trailer and the entries");
  }

  private static void write(SiltStore store, Map<ByteBuffer, byte[]> model, byte[] key, Random random) throws IOException {
    byte[] value = new byte[random.nextInt(5) == 0 ? 300 : random.nextInt(30)];
    random.nextBytes(value);
    store.put(key, value);
    model.put(ByteBuffer.wrap(key), value);
  }
}
