package io.varve.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.varve.reader.ShardedStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression: a session whose serializer is Kryo, registration required (a common production
 * setting), failed every write: Spark serialized the tasks' reports, records, with Kryo, which
 * cannot serialize a record.
 */
class VarveSparkKryoTest {
  private static SparkSession spark;

  @TempDir Path temp;

  @BeforeAll
  static void startSpark() {
    spark = SparkTestSessions.start("local[2]",
        "spark.serializer", "org.apache.spark.serializer.KryoSerializer",
        "spark.kryo.registrationRequired", "true");
  }

  @BeforeEach
  void needsSpark() {
    SparkTestSessions.assumeSpark(spark);
  }

  @AfterAll
  static void stopSpark() {
    SparkTestSessions.stop(spark);
  }

  @Test
  void aKryoSessionWritesBothShardFormats() throws IOException {
    for (ShardFormat format : ShardFormat.values()) {
      Path output = temp.resolve(format.name());
      VarveSpark.write(spark.range(0, 5_000, 1, 3).select(
              concat(lit("key-"), col("id").cast("string")).as("k"), concat(lit("value-"), col("id").cast("string")).as("v")),
          "k", "v", output.toUri().toString(), VarveWriteOptions.builder(4).shardFormat(format).build());
      try (ShardedStore store = ShardedStore.open(output)) {
        assertEquals(5_000, store.size());
        for (int i = 0; i < 5_000; i++) {
          assertArrayEquals(("value-" + i).getBytes(StandardCharsets.UTF_8), store.get(("key-" + i).getBytes(StandardCharsets.UTF_8)));
        }
        assertNull(store.get("key-5000".getBytes(StandardCharsets.UTF_8)));
        store.verify();
      }
    }
  }
}
