package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * kill -9 of a child JVM writing with a write-ahead log, at a random moment: after reopening, every
 * write the child had acknowledged as durable is there (and deletes likewise), and writes it had
 * not may or may not be. {@code -Dvarve.bufferhash.kills} sets the number of kills per mode.
 */
class BufferHashKillTest {
  @TempDir Path temp;

  static BufferHashBuilder builder(Path dir, Durability durability) {
    return BufferHash.builder(dir).logBytes(64 << 20).memoryBytes(4 << 20).entryBytes(30).bufferBytes(4096).superTables(8).durability(durability).walSegmentBytes(64 * 1024);
  }

  @ParameterizedTest
  @EnumSource(value = Durability.class, names = {"SYNC_ON_CALL", "SYNC_EVERY_WRITE"})
  void noAcknowledgedWriteIsLost(Durability durability) throws Exception {
    int kills = Integer.getInteger("varve.bufferhash.kills", 4);
    long seed = 0x4B111L + durability.ordinal();
    System.out.println("BufferHashKillTest " + durability + ": seed " + seed + ", " + kills + " kills");
    Random random = new Random(seed);
    for (int round = 0; round < kills; round++) {
      Path dir = temp.resolve(durability + "-" + round);
      Process child =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  BufferHashKillChild.class.getName(),
                  dir.toString(),
                  durability.name(),
                  Long.toString(random.nextLong()))
              .redirectErrorStream(true)
              .start();
      AtomicLong acked = new AtomicLong(-1);
      CountDownLatch firstAck = new CountDownLatch(1);
      StringBuilder output = new StringBuilder();
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String line; (line = lines.readLine()) != null; ) {
                    if (line.startsWith("acked ")) {
                      acked.set(Long.parseLong(line.substring(6)));
                      firstAck.countDown();
                    } else {
                      output.append(line).append('\n');
                    }
                  }
                } catch (java.io.IOException ignored) {
                  // the child died
                }
              });
      reader.start();
      // The kill comes at a random point of the writes, counted from the first one acknowledged: a
      // child JVM slow to start on a loaded machine must not turn the test into a kill before any.
      assertTrue(firstAck.await(60, TimeUnit.SECONDS) || !child.isAlive(), "the child acknowledged nothing in 60 s:\n" + output);
      long waitMillis = random.nextInt(1600);
      Thread.sleep(waitMillis);
      assertTrue(child.isAlive(), "the child ended by itself:\n" + output);
      child.destroyForcibly();
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
      reader.join();
      long last = acked.get();
      assertTrue(last >= 0, "the child acknowledged nothing:\n" + output);
      long present = 0;
      try (BufferHash table = builder(dir, durability).open()) {
        for (long i = 0; i <= last; i++) {
          long deletingStep = (i + 100) % 7 == 0 ? i + 100 : -1;
          byte[] value = table.get(BufferHashKillChild.key(i));
          if (deletingStep >= 0 && deletingStep <= last) {
            assertArrayEquals(null, value, "key " + i + " was deleted at step " + deletingStep + " <= " + last);
          } else if (deletingStep < 0) {
            assertArrayEquals(BufferHashKillChild.value(i), value, "key " + i + " acknowledged at step " + last);
            present++;
          } else if (value != null) {
            assertArrayEquals(BufferHashKillChild.value(i), value);
          }
        }
        System.out.println(
            "BufferHashKillTest " + durability + " round " + round + ": killed " + waitMillis + " ms after its first acknowledgement, " + (last + 1) + " steps acknowledged, "
                + present + " keys checked present; " + table.stats().flushes() + " flushes while reopening");
      }
    }
  }
}
