package io.varve.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class PageTableReadTest {
  private static byte[] tableOf(int frames) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(4096);
    out.writeInt(frames);
    for (int f = 0; f < frames; f++) {
      out.writeInt(f * 4_000);
      out.writeShort(1);
      out.writeShort(0);
      out.writeShort(100);
    }
    return bytes.toByteArray();
  }

  private static long allocatedBytes() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
  }

  /**
   * A table is read straight into its 8 bytes per frame, and builds no error message for a valid
   * one. Reading once built the text of every check's error for every frame (opening a 9 GB store
   * of 2.2 million pages took a second, most of it formatting numbers), and went through a builder
   * growing arrays by doubling, then copied twice: 53 bytes per frame allocated for these 300,000,
   * up to 3.5 times the table at once. A SILT merge builds a table and reads it back beside the old
   * one's; with 3 · 10^7 YCSB records (8 M frames) and a 256 MiB heap, one ran out of memory.
   */
  @Test
  void readingAllocatesLittleMoreThanTheRows() throws IOException {
    int frames = 300_000;
    byte[] table = tableOf(frames);
    long before = allocatedBytes();
    PageTable read = PageTable.readFrom(new DataInputStream(new ByteArrayInputStream(table)), table.length, frames, 4096L * frames, 4096, 4);
    double perFrame = (allocatedBytes() - before) / (double) frames;
    assertEquals(frames, read.frameCount());
    assertEquals(frames - 1, read.frameOfRank(frames - 1));
    assertTrue(perFrame < 12, "reading allocated " + perFrame + " bytes per frame");
  }
}
