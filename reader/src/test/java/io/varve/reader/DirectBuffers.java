package io.varve.reader;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/** What tests see of the JVM's direct buffers: one left to the GC is memory a caller cannot free. */
final class DirectBuffers {
  private DirectBuffers() {}

  /** The bytes of direct buffers not yet freed, now. */
  static long usedBytes() {
    long used = 0;
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        used += pool.getMemoryUsed();
      }
    }
    return used;
  }
}
