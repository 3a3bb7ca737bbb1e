package io.varve.examples.spark;

import java.util.Optional;
import io.varve.spark.HadoopClient;
import org.apache.hadoop.util.VersionInfo;
import org.apache.spark.sql.SparkSession;

/**
 * A Spark session in local mode for the examples, and whether this JVM can run one: Spark's Hadoop
 * client calls {@code Subject.getSubject}, which newer JDKs refuse (HADOOP-19212), so there the
 * example says so instead of failing with a stack trace. Stateless; thread-safe.
 */
public final class LocalSpark {
  private LocalSpark() {}

  /** Why Spark cannot start in this JVM, in a sentence that says what to do; empty where it can. */
  public static Optional<String> whyItCannotStart() {
    if (HadoopClient.startsHere()) {
      return Optional.empty();
    }
    return Optional.of("Spark " + org.apache.spark.package$.MODULE$.SPARK_VERSION() + " runs Hadoop " + VersionInfo.getVersion()
        + ", whose UserGroupInformation calls Subject.getSubject, which Java " + Runtime.version().feature()
        + " no longer supports (HADOOP-19212): run the Spark job on Java 17 or 21");
  }

  /**
   * Starts a session on {@code master} ({@code local[2]}: two task threads in this JVM), without the
   * web UI and bound to the loopback address: local mode needs no network. Stop it when done.
   *
   * @throws IllegalStateException where Spark cannot start ({@link #whyItCannotStart})
   */
  public static SparkSession start(String master, String appName) {
    whyItCannotStart().ifPresent(reason -> {
      throw new IllegalStateException(reason);
    });
    return SparkSession.builder()
        .master(master)
        .appName(appName)
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "localhost")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate();
  }

  /** Stops {@code spark} (null: nothing) and forgets it, so that a later session in this JVM starts anew. */
  public static void stop(SparkSession spark) {
    if (spark != null) {
      spark.stop();
    }
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
  }
}
