package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.core.testing.TestRecords;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store opens and answers in a JVM started without any option: the reader falls back to plain
 * {@code FileChannel} mappings and says so in one log line, instead of failing.
 */
class NoJvmOptionsTest {
  private static final long SEED = 0x0F1A95L;

  @TempDir Path temp;

  static Map<ByteBuffer, byte[]> records(long seed) {
    return TestRecords.variable(5000, seed, 20, 100);
  }

  @Test
  void aJvmWithoutOptionsReadsThroughFileChannelMappings() throws Exception {
    System.out.println("NoJvmOptionsTest seed=" + SEED);
    Map<ByteBuffer, byte[]> records = records(SEED);
    Path dir = temp.resolve("store");
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    Path log = temp.resolve("child.log");
    Process child = ChildJvm.start(NoJvmOptionsChild.class, log, dir.toString(), Long.toString(SEED));
    assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the child did not finish");
    String output = Files.readString(log, StandardCharsets.UTF_8);
    System.out.println(output);
    assertEquals(0, child.exitValue(), output);
    assertTrue(output.contains("granted false"), output);
    assertTrue(output.contains("MAPPED found 5000 of 5000"), output);
    assertTrue(output.contains("LOADED found 5000 of 5000"), output);
    assertEquals(1, output.split("FileChannel mappings", -1).length - 1, "one log line says how the store is read: " + output);
    assertFalse(output.contains("SLF4J"), output);
  }
}
