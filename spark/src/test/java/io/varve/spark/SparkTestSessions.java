package io.varve.spark;

import org.apache.spark.sql.SparkSession;

/** The local Spark sessions of the tests: no UI, loopback only, few shuffle partitions. */
final class SparkTestSessions {
  private SparkTestSessions() {}

  /** A new session on {@code master}, with the extra {@code config} pairs (key, value, key, value, ...). */
  static SparkSession start(String master, String... config) {
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

  /** Stops {@code spark} and forgets it, so that the next test class starts its own. */
  static void stop(SparkSession spark) {
    if (spark != null) {
      spark.stop();
    }
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
  }
}
