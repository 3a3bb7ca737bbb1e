package io.varve.spark;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where Hadoop 3.4.1's client cannot start (Java 24 and later, HADOOP-19212), the fetcher says so
 * and what to run instead, and leaves nothing behind. Runs only there (Temurin 25 in CI).
 */
class HadoopOnNewerJavaTest {
  @TempDir Path temp;

  @Test
  void theFetcherSaysWhyTheHadoopClientCannotStart() throws Exception {
    Assumptions.assumeFalse(SparkTestSessions.sparkStarts(), "the Hadoop client starts on Java " + Runtime.version());
    Path root = temp.resolve("root");
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
        () -> ShardedStoreFetcher.fetch(temp.resolve("source").toUri(), new Configuration(), root));
    assertTrue(e.getMessage().contains("HADOOP-19212") && e.getMessage().contains("Java 17 or 21"), e.getMessage());
    try (var entries = Files.list(root)) {
      assertFalse(entries.anyMatch(p -> p.getFileName().toString().startsWith("v")), "a version was left");
    }
  }
}
