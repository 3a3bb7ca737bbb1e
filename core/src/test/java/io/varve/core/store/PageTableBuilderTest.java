package io.varve.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PageTableBuilderTest {
  private static final int PAGE = 4096;

  /** Frames over several of the builder's chunks, some empty, written, read back and built alike. */
  @Test
  void framesOverManyChunksRoundTrip() throws IOException {
    long seed = 0x9A6EL;
    System.out.println("PageTableBuilderTest seed=" + seed);
    SplittableRandom random = new SplittableRandom(seed);
    int frames = 2 * PageTable.Builder.CHUNK_FRAMES + 12_345;
    int[] counts = new int[frames];
    int[] heads = new int[frames];
    long[] firsts = new long[frames];
    PageTable.Builder builder = PageTable.builder(PAGE);
    long first = 0;
    long records = 0;
    for (int f = 0; f < frames; f++) {
      if (f > 0 && random.nextInt(8) == 0) {
        builder.addEmpty();
        firsts[f] = first;
        continue;
      }
      first = Math.min(0xFFFF_FFFFL, first + random.nextInt(30_000));
      counts[f] = 1 + random.nextInt(20);
      heads[f] = f > 0 && random.nextBoolean() ? 64 : 0;
      int recordsEnd = heads[f] + PagedLayout.headBytes(counts[f]) + 100 * counts[f];
      builder.add((int) first, counts[f], heads[f], recordsEnd);
      firsts[f] = first;
      records += counts[f];
    }
    assertTrue(builder.ramBytesUsed() < 11L * frames + 11L * PageTable.Builder.CHUNK_FRAMES, builder.ramBytesUsed() + " bytes");
    long dataBytes = (long) frames * PAGE;
    builder.finish(dataBytes);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    builder.writeTo(new DataOutputStream(bytes));

    PageTable read = PageTable.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())), bytes.size(), records, dataBytes, PAGE, 4);
    PageTable built = builder.build(dataBytes);
    for (PageTable table : new PageTable[] {read, built}) {
      assertEquals(frames, table.frameCount());
      assertEquals(records, table.recordCount());
      int[] tableCounts = new int[frames];
      int[] tableHeads = new int[frames];
      long[] tableFirsts = new long[frames];
      for (int f = 0; f < frames; f++) {
        tableCounts[f] = table.count(f);
        tableHeads[f] = table.headerStart(f);
        tableFirsts[f] = table.first(f);
      }
      assertArrayEquals(counts, tableCounts);
      assertArrayEquals(heads, tableHeads);
      assertArrayEquals(firsts, tableFirsts);
    }
  }

  @Test
  void aBuiltTableLeavesNothingToWriteOrAdd() {
    PageTable.Builder builder = PageTable.builder(PAGE).add(0, 1, 0, 200);
    builder.build(PAGE);
    assertThrows(IllegalStateException.class, () -> builder.writeTo(new DataOutputStream(new ByteArrayOutputStream())));
    assertThrows(IllegalStateException.class, () -> builder.add(5, 1, 0, 200));
    assertThrows(IllegalStateException.class, () -> builder.build(PAGE));
  }
}
