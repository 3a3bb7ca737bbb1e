package io.varve.examples.dedup;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeduplicatorTest {
  private static final int MIB = 1 << 20;
  private static final FastCdc CDC = FastCdc.defaults();

  /**
   * The redundancy of {@code streams} by a plain reference that shares only the chunker with the
   * pipeline: chunks compared by content in a set, no fingerprints, no index.
   */
  private static long referenceDuplicateBytes(List<byte[]> streams) throws IOException {
    Set<ByteBuffer> seen = new HashSet<>();
    long duplicate = 0;
    for (byte[] stream : streams) {
      for (byte[] chunk : FastCdcTest.chunks(CDC, stream)) {
        if (!seen.add(ByteBuffer.wrap(chunk))) {
          duplicate += chunk.length;
        }
      }
    }
    return duplicate;
  }

  private static DedupStats dedup(List<byte[]> streams, ChunkIndex index, ChunkIndex reference) throws IOException {
    Deduplicator dedup = new Deduplicator(CDC, index, reference);
    for (byte[] stream : streams) {
      dedup.add(new ByteArrayInputStream(stream));
    }
    return dedup.stats();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  /** Known duplication: one random MiB repeated, shifted copies of it, and fresh data. */
  private static List<byte[]> knownDuplication() {
    byte[] block = FastCdcTest.random(MIB, 11);
    return List.of(
        concat(block, block, block, block),                           // 3 of 4 MiB seen before
        concat(FastCdcTest.random(1000, 12), block),                  // shifted by 1000 bytes
        concat(FastCdcTest.random(77_777, 13), block, FastCdcTest.random(5, 14)), // shifted, with a tail
        FastCdcTest.random(2 * MIB, 15),                               // nothing seen before
        new byte[0],
        new byte[] {1});
  }

  @Test
  void redundancyMatchesAPlainReference() throws IOException {
    List<byte[]> streams = knownDuplication();
    long total = streams.stream().mapToLong(s -> s.length).sum();
    DedupStats stats = dedup(streams, new HashMapChunkIndex(), null);
    assertEquals(total, stats.bytes());
    assertEquals(streams.size(), stats.files());
    assertEquals(referenceDuplicateBytes(streams), stats.duplicateBytes());
    // And what the construction promises: every copy after the first is found, but for the chunks
    // where the content around a cut changes (at most two cuts per copy boundary, each chunk at
    // most 64 KiB).
    long repeated = 3L * MIB + MIB + MIB;
    long slack = 5 * 2L * CDC.maxSize();
    assertTrue(stats.duplicateBytes() <= repeated, stats.toString());
    assertTrue(stats.duplicateBytes() >= repeated - slack, stats.toString());
    assertEquals(-1, stats.referenceDuplicateBytes());
  }

  @Test
  void freshDataHasNoRedundancyAndRepeatedDataIsAllRedundant() throws IOException {
    byte[] data = FastCdcTest.random(3 * MIB, 16);
    DedupStats fresh = dedup(List.of(data), new HashMapChunkIndex(), null);
    assertEquals(0, fresh.duplicateBytes());
    assertEquals(0.0, fresh.redundancy());
    DedupStats twice = dedup(List.of(data, data), new HashMapChunkIndex(), null);
    assertEquals(data.length, twice.duplicateBytes());
    assertEquals(fresh.chunks(), twice.duplicateChunks());
    assertEquals(0.5, twice.redundancy());
  }

  @Test
  void recordsEachNewChunkAtItsFirstAddress() throws Exception {
    byte[] block = FastCdcTest.random(MIB, 17);
    HashMapChunkIndex index = new HashMapChunkIndex();
    DedupStats stats = dedup(List.of(FastCdcTest.random(10, 18), block, block), index, null);
    assertEquals(stats.chunks() - stats.duplicateChunks(), index.size());
    List<byte[]> chunks = FastCdcTest.chunks(CDC, block);
    MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
    long offset = 0;
    for (byte[] chunk : chunks) {
      // Stream 1 (the block's first copy), not stream 2 (its second).
      assertArrayEquals(Deduplicator.address(1, offset), index.get(sha1.digest(chunk)));
      offset += chunk.length;
    }
    assertNull(index.get(new byte[20]));
  }

  @Test
  void addressesHoldStreamAndOffset() {
    assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 0}, Deduplicator.address(0, 0));
    assertArrayEquals(new byte[] {0, 0, 3, 0, 0, 0, 1, 2}, Deduplicator.address(3, 258));
    assertArrayEquals(new byte[] {0, 0, 1, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff},
        Deduplicator.address(1, (1L << 40) - 1));
  }

  @Test
  void checkAgainstAReferenceCountsDisagreements() throws IOException {
    List<byte[]> streams = knownDuplication();
    DedupStats agreeing = dedup(streams, new HashMapChunkIndex(), new HashMapChunkIndex());
    assertEquals(agreeing.duplicateBytes(), agreeing.referenceDuplicateBytes());
    assertEquals(0, agreeing.disagreements());
    assertEquals(0, agreeing.wrongAddresses());
    // An index that forgets: every chunk of the repeated block is found by the reference only.
    DedupStats forgetful = dedup(streams, new ForgetfulIndex(), new HashMapChunkIndex());
    assertEquals(0, forgetful.duplicateBytes());
    assertEquals(agreeing.duplicateChunks(), forgetful.disagreements());
    assertEquals(agreeing.duplicateBytes(), forgetful.referenceDuplicateBytes());
  }

  /** Small chunks (about 4,000 per MiB), so that BufferHash's buffers fill and its log is read. */
  private static final FastCdc SMALL = new FastCdc(64, 256, 1024);

  private static DedupStats dedupSmall(List<byte[]> streams, ChunkIndex index, ChunkIndex reference) throws IOException {
    Deduplicator dedup = new Deduplicator(SMALL, index, reference);
    for (byte[] stream : streams) {
      dedup.add(new ByteArrayInputStream(stream));
    }
    return dedup.stats();
  }

  @Test
  void bufferHashFindsWhatAHashMapFindsWhileItEvictsNothing(@TempDir Path temp) throws IOException {
    List<byte[]> streams = knownDuplication();
    try (BufferHashChunkIndex index = BufferHashChunkIndex.open(temp.resolve("index"), 4 << 20, 512 << 10)) {
      DedupStats stats = dedupSmall(streams, index, new HashMapChunkIndex());
      assertTrue(index.table().stats().flushes() > 5, index.table().stats().toString());
      assertTrue(index.table().stats().flashReads() > 0, index.table().stats().toString());
      assertEquals(0, index.table().stats().evictedIncarnations());
      assertTrue(stats.duplicateBytes() > 5L * MIB - 100_000, stats.toString());
      assertEquals(stats.referenceDuplicateBytes(), stats.duplicateBytes());
      assertEquals(0, stats.disagreements());
      assertEquals(0, stats.wrongAddresses());
      assertTrue(index.diskBytes() > 0 && index.ramBytes() > 0);
    }
  }

  /**
   * A log too small for the run: the oldest fingerprints are evicted, so BufferHash finds less than
   * the HashMap, never more (it forgets, it does not invent).
   */
  @Test
  void aLogTooSmallForgetsTheOldestChunks(@TempDir Path temp) throws IOException {
    byte[] first = FastCdcTest.random(2 * MIB, 20);
    List<byte[]> streams = List.of(first, FastCdcTest.random(2 * MIB, 21), first);
    try (BufferHashChunkIndex index = BufferHashChunkIndex.open(temp.resolve("index"), 256 << 10, 256 << 10)) {
      DedupStats stats = dedupSmall(streams, index, new HashMapChunkIndex());
      assertTrue(index.table().stats().evictedIncarnations() > 0, index.table().stats().toString());
      assertTrue(stats.duplicateBytes() < stats.referenceDuplicateBytes(), stats.toString());
      assertEquals(stats.duplicateChunks() + stats.disagreements(), stats.chunks() - fresh(streams), stats.toString());
    }
  }

  /** Chunks of {@code streams} (cut by {@link #SMALL}) that a perfect index would find new. */
  private static long fresh(List<byte[]> streams) throws IOException {
    Set<ByteBuffer> seen = new HashSet<>();
    for (byte[] stream : streams) {
      for (byte[] chunk : FastCdcTest.chunks(SMALL, stream)) {
        seen.add(ByteBuffer.wrap(chunk));
      }
    }
    return seen.size();
  }

  @Test
  void reportsProgress() throws IOException {
    List<DedupStats> reports = new ArrayList<>();
    Deduplicator dedup = new Deduplicator(CDC, new HashMapChunkIndex(), null).progress(reports::add, 0);
    dedup.add(new ByteArrayInputStream(FastCdcTest.random(8 * MIB, 19)));
    assertTrue(reports.size() >= 2, reports.toString());
    assertTrue(reports.get(0).chunks() < reports.get(reports.size() - 1).chunks());
  }

  /** Remembers nothing. */
  private static final class ForgetfulIndex implements ChunkIndex {
    @Override
    public byte[] get(byte[] fingerprint) {
      return null;
    }

    @Override
    public void put(byte[] fingerprint, byte[] address) {}

    @Override
    public long ramBytes() {
      return 0;
    }

    @Override
    public long diskBytes() {
      return 0;
    }

    @Override
    public String description() {
      return "nothing";
    }

    @Override
    public void close() {}
  }
}
