package io.varve.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.shard.ShardManifest;
import io.varve.reader.ShardedStore;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of the driver at random points of a write ({@link KilledDriverChild}, a JVM of
 * its own): the output is then either not a store (no manifest: {@link ShardedStore#open} refuses
 * it) or, when the kill came after the manifest's rename, the whole store. Never a part of one.
 */
class KilledDriverTest {
  private static final int KILLS = 3;
  private static final long ROWS = 400_000;

  @TempDir Path temp;

  @Test
  void aKilledDriverPublishesNothingOrEverything() throws Exception {
    Assumptions.assumeTrue(SparkTestSessions.sparkStarts(), "Spark 4.0.1 does not start on JDK " + Runtime.version() + " (HADOOP-19212)");
    long seed = 0x4B11D5L;
    System.out.println("KilledDriverTest seed " + Long.toHexString(seed));
    SplittableRandom random = new SplittableRandom(seed);
    List<String> outcomes = new ArrayList<>();
    for (int run = 0; run < KILLS; run++) {
      Path output = temp.resolve("out-" + run);
      Path log = temp.resolve("driver-" + run + ".log");
      Process driver = startDriver(output, log);
      awaitLine(driver, log, "writing");
      awaitPath(driver, log, output.resolve("_temporary")); // the job has started
      Thread.sleep(random.nextInt(2_500));
      boolean aliveAtKill = driver.isAlive();
      driver.destroyForcibly();
      assertTrue(driver.waitFor(60, TimeUnit.SECONDS));
      boolean published = Files.readString(log).contains("published");
      assertTrue(aliveAtKill || published, "the driver died by itself: " + Files.readString(log));
      if (Files.exists(output.resolve(ShardManifest.FILE_NAME))) {
        outcomes.add("whole store" + (published ? " (after the driver's return)" : ""));
        try (ShardedStore store = ShardedStore.open(output)) {
          assertEquals(ROWS, store.size());
          for (long i = 0; i < ROWS; i += 997) {
            assertArrayEquals(utf8("value-" + i), store.get(utf8("key-" + i)));
          }
          store.verify();
        }
      } else {
        outcomes.add(Files.exists(output) ? "no manifest" : "no output");
        assertThrows(NoSuchFileException.class, () -> ShardedStore.open(output));
      }
    }
    System.out.println("KilledDriverTest: " + outcomes);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** This JVM's java, class path and options (Spark's --add-opens among them). */
  private static Process startDriver(Path output, Path log) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (option.startsWith("--add-") || option.startsWith("-XX:+IgnoreUnrecognized") || option.startsWith("-D")) {
        command.add(option);
      }
    }
    command.add("-Xmx1g");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(KilledDriverChild.class.getName());
    command.add(output.toUri().toString());
    command.add(Long.toString(ROWS));
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private static void awaitPath(Process driver, Path log, Path path) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!Files.exists(path)) {
      assertTrue(driver.isAlive(), "the driver died before " + path + " appeared: " + Files.readString(log));
      assertTrue(System.nanoTime() < deadline, "no " + path + " within 2 minutes: " + Files.readString(log));
      Thread.sleep(5);
    }
  }

  private static void awaitLine(Process driver, Path log, String line) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!Files.readString(log).contains(line)) {
      assertTrue(driver.isAlive(), "the driver died before '" + line + "': " + Files.readString(log));
      assertTrue(System.nanoTime() < deadline, "no '" + line + "' within 2 minutes: " + Files.readString(log));
      Thread.sleep(20);
    }
  }
}
