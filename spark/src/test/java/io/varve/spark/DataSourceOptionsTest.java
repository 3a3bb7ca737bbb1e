package io.varve.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.DuplicatePolicy;
import io.varve.core.store.KeyMode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The options of {@code format("varve")} read without Spark: defaults, every option, and every refusal's message. */
class DataSourceOptionsTest {
  @Test
  void defaults() {
    DataSourceOptions options = DataSourceOptions.parse(Map.of("path", "/out", "shards", "4"));
    assertEquals("/out", options.path());
    assertEquals("key", options.keyColumn());
    assertEquals("value", options.valueColumn());
    VarveWriteOptions defaults = VarveWriteOptions.builder(4).build();
    assertEquals(defaults.toString(), options.writeOptions().toString());
  }

  @Test
  void everyOptionInAnyCase() {
    DataSourceOptions options = DataSourceOptions.parse(pairs("PATH", "hdfs:///x", "Shards", " 64 ", "keyColumn", "k",
        "VALUECOLUMN", "v", "seed", "-7", "Duplicates", "LAST_WINS", "nullValuesAsEmpty", "TRUE", "memoryBudget", "128m",
        "keymode", "signature:12", "localDirectory", "/tmp/x", "shardFormat", "Artifact"));
    VarveWriteOptions write = options.writeOptions();
    assertEquals("k", options.keyColumn());
    assertEquals("v", options.valueColumn());
    assertEquals(64, write.shards());
    assertEquals(-7, write.seed());
    assertEquals(DuplicatePolicy.LAST_WINS, write.duplicates());
    assertTrue(write.nullValuesAsEmpty());
    assertEquals(128L << 20, write.memoryBudget());
    assertEquals(KeyMode.signature(12), write.keyMode());
    assertEquals("/tmp/x", write.localDirectory().orElseThrow());
    assertEquals(ShardFormat.ARTIFACT, write.shardFormat());
    assertEquals(KeyMode.NONE, DataSourceOptions.parse(Map.of("path", "p", "shards", "1", "keyMode", "none")).writeOptions().keyMode());
    assertEquals(KeyMode.FULL, DataSourceOptions.parse(Map.of("path", "p", "shards", "1", "keyMode", "Full")).writeOptions().keyMode());
  }

  @Test
  void refusalsNameTheOptionAndTheValue() {
    refused(Map.of("shards", "2"), "needs save(path)");
    refused(Map.of("path", "p"), "needs option(\"shards\", N)");
    refused(Map.of("path", "p", "shards", "2", "shard", "2"), "no option 'shard'");
    refused(Map.of("path", "p", "shards", "0"), "shard");
    refused(Map.of("path", "p", "shards", "70000"), "shard");
    refused(Map.of("path", "p", "shards", "2.5"), "shards expects an integer, got '2.5'");
    refused(Map.of("path", "p", "shards", "2", "seed", "0x10"), "seed expects an integer, got '0x10'");
    refused(Map.of("path", "p", "shards", "2", "duplicates", "first"), "duplicates expects fail or last_wins, got 'first'");
    refused(Map.of("path", "p", "shards", "2", "nullValuesAsEmpty", "yes"), "nullvaluesasempty expects true or false, got 'yes'");
    refused(Map.of("path", "p", "shards", "2", "memoryBudget", "lots"), "memorybudget expects a size such as 64m or 1g, got 'lots'");
    refused(Map.of("path", "p", "shards", "2", "memoryBudget", "1k"), "memory");
    refused(Map.of("path", "p", "shards", "2", "keyMode", "signature:65"), "keymode expects signature:K with K from 1 to 64, got 'signature:65'");
    refused(Map.of("path", "p", "shards", "2", "keyMode", "partial"), "keymode expects full, none or signature:K");
    refused(Map.of("path", "p", "shards", "2", "shardFormat", "zip"), "shardformat expects directory or artifact, got 'zip'");
  }

  private static Map<String, String> pairs(String... keysAndValues) {
    Map<String, String> options = new java.util.LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      options.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return options;
  }

  private static void refused(Map<String, String> options, String expected) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DataSourceOptions.parse(options));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}
