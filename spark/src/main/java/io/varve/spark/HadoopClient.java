package io.varve.spark;

import java.security.AccessController;
import javax.security.auth.Subject;

/**
 * Whether Hadoop's client, which Spark 4.0 runs (Hadoop 3.4.1) and {@link ShardedStoreFetcher}
 * uses, can start in this JVM: its {@code UserGroupInformation} calls {@code Subject.getSubject},
 * which Java 24 and later no longer support (HADOOP-19212). Stateless; thread-safe.
 */
public final class HadoopClient {
  private HadoopClient() {}

  /** Whether this JVM still answers {@code Subject.getSubject} (Java 17 to 22; 23 with {@code -Djava.security.manager=allow}). */
  @SuppressWarnings("removal")
  public static boolean startsHere() {
    try {
      Subject.getSubject(AccessController.getContext());
      return true;
    } catch (UnsupportedOperationException e) {
      return false;
    }
  }
}
