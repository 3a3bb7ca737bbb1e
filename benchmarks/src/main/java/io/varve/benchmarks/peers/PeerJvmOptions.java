package io.varve.benchmarks.peers;

import java.util.List;

/**
 * The JVM options of every process that opens peers' stores (the comparison's child processes and
 * {@link PeerLookupBenchmark}'s forks): Chronicle Bytes' for Varve, Indeed util-mmap's for
 * mph-table, native access for RocksDB. Constants, so that JMH's annotation can name them.
 */
final class PeerJvmOptions {
  static final String HEAP = "-Xmx8g";
  static final String GC = "-XX:+UseParallelGC";
  static final String OPEN_REFLECT = "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED";
  static final String EXPORT_NIO_CH = "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED";
  static final String EXPORT_REF = "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED";
  static final String OPEN_IO = "--add-opens=java.base/java.io=ALL-UNNAMED";
  static final String OPEN_NIO = "--add-opens=java.base/java.nio=ALL-UNNAMED";
  static final String OPEN_NIO_CH = "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED";
  static final String NATIVE = "--enable-native-access=ALL-UNNAMED";

  static final List<String> ALL =
      List.of(HEAP, GC, OPEN_REFLECT, EXPORT_NIO_CH, EXPORT_REF, OPEN_IO, OPEN_NIO, OPEN_NIO_CH, NATIVE);

  private PeerJvmOptions() {}
}
