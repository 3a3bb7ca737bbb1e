package io.varve.spark;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Assumptions;

/** The local Spark sessions of the tests: no UI, loopback only, few shuffle partitions. */
final class SparkTestSessions {
  private SparkTestSessions() {}

  /** Skips the test where Spark cannot start: each test says why, rather than the class vanishing from the report. */
  static void assumeSpark(SparkSession spark) {
    Assumptions.assumeTrue(spark != null, "Spark 4.0.1 runs Hadoop 3.4.1, whose UserGroupInformation calls "
        + "Subject.getSubject, which JDK 24 and later no longer support (HADOOP-19212): Spark tests skipped on JDK "
        + Runtime.version());
  }

  /** A new session on {@code master}, or null on a JDK where Spark cannot start (see {@link #assumeSpark}), with the extra {@code config} pairs (key, value, key, value, ...). */
  static SparkSession start(String master, String... config) {
    if (!HadoopClient.startsHere()) {
      return null;
    }
    SparkSession.Builder builder = SparkSession.builder()
        .master(master)
        .appName("varve-spark-test")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "localhost")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2");
    for (int i = 0; i < config.length; i += 2) {
      builder.config(config[i], config[i + 1]);
    }
    return builder.getOrCreate();
  }

  /** Whether Spark can start on this JDK (see {@link #assumeSpark}). */
  static boolean sparkStarts() {
    return HadoopClient.startsHere();
  }

  /** Stops {@code spark} and forgets it, so that the next test class starts its own. */
  static void stop(SparkSession spark) {
    if (spark != null) {
      spark.stop();
    }
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
  }
}
