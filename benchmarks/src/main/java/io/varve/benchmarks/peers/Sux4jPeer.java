package io.varve.benchmarks.peers;

import io.varve.benchmarks.GovFunctions;
import io.varve.core.store.RecordFormat;
import it.unimi.dsi.fastutil.io.BinIO;
import it.unimi.dsi.fastutil.longs.LongIterator;
import it.unimi.dsi.sux4j.mph.GOVMinimalPerfectHashFunction;
import it.unimi.dsi.sux4j.util.EliasFanoMonotoneLongBigList;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The parts of sux4j that mph-table is made of, used directly: a {@link
 * GOVMinimalPerfectHashFunction} maps a key to a slot, an {@link EliasFanoMonotoneLongBigList}
 * maps the slot to its record's offset (dropped when records have one size), and a memory-mapped
 * file holds the records (varint key length as in Varve's {@link RecordFormat}, key, value) so
 * absent keys are detected. Both
 * structures live on the heap. No incremental path: the batch is a full rebuild. Stateless;
 * thread-safe.
 */
final class Sux4jPeer implements Peer {
  private static final String MPH = "mph.bin";
  private static final String OFFSETS = "offsets.bin";
  private static final String DATA = "data.bin";

  @Override
  public String name() {
    return "sux4j";
  }

  @Override
  public void build(RecordSet records, Path dir) throws Exception {
    Files.createDirectories(dir);
    if (records.size() > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("this harness builds at most 2^31 records with sux4j");
    }
    int n = (int) records.size();
    GOVMinimalPerfectHashFunction<byte[]> mph = GovFunctions.build(n, records::key, null);
    BinIO.storeObject(mph, dir.resolve(MPH).toFile());
    int fixedBytes = fixedRecordBytes(records);
    EliasFanoMonotoneLongBigList offsets = fixedBytes >= 0 ? null : offsets(records, mph, n);
    long dataBytes = fixedBytes >= 0 ? (long) fixedBytes * n : offsets.getLong(n);
    MappedSegments data = MappedSegments.create(dir.resolve(DATA), dataBytes);
    byte[] buffer = new byte[64];
    records.forEach(
        (key, value) -> {
          long slot = mph.getLong(key);
          long start = fixedBytes >= 0 ? slot * fixedBytes : offsets.getLong(slot);
          int header = RecordFormat.writeVarint(buffer, 0, key.length);
          data.write(start, buffer, 0, header);
          data.write(start + header, key, 0, key.length);
          data.write(start + header + key.length, value, 0, value.length);
        });
    data.force();
    if (offsets != null) {
      BinIO.storeObject(offsets, dir.resolve(OFFSETS).toFile());
    }
  }

  /** The size of every record when keys and values have fixed sizes, else -1. */
  private static int fixedRecordBytes(RecordSet records) {
    int keyBytes = records.fixedKeyBytes();
    int valueBytes = records.fixedValueBytes();
    return keyBytes < 0 || valueBytes < 0 ? -1 : RecordFormat.varintLength(keyBytes) + keyBytes + valueBytes;
  }

  private static EliasFanoMonotoneLongBigList offsets(
      RecordSet records, GOVMinimalPerfectHashFunction<byte[]> mph, int n) throws Exception {
    int[] lengths = new int[n];
    records.forEach((key, value) -> lengths[(int) mph.getLong(key)] = RecordFormat.varintLength(key.length) + key.length + value.length);
    long total = Arrays.stream(lengths).asLongStream().sum();
    LongIterator starts =
        new LongIterator() {
          private int slot;
          private long start;

          @Override
          public boolean hasNext() {
            return slot <= n;
          }

          @Override
          public long nextLong() {
            long current = start;
            if (slot < n) {
              start += lengths[slot];
            }
            slot++;
            return current;
          }
        };
    return new EliasFanoMonotoneLongBigList(n + 1L, total, starts);
  }

  @Override
  @SuppressWarnings("unchecked")
  public Reader open(Path dir) throws Exception {
    GOVMinimalPerfectHashFunction<byte[]> mph =
        (GOVMinimalPerfectHashFunction<byte[]>) BinIO.loadObject(dir.resolve(MPH).toFile());
    Path offsetsFile = dir.resolve(OFFSETS);
    EliasFanoMonotoneLongBigList offsets =
        Files.exists(offsetsFile) ? (EliasFanoMonotoneLongBigList) BinIO.loadObject(offsetsFile.toFile()) : null;
    MappedSegments data = MappedSegments.open(dir.resolve(DATA));
    long n = mph.size64();
    long dataBytes = Files.size(dir.resolve(DATA));
    long fixedBytes = offsets == null && n > 0 ? dataBytes / n : 0;
    return new Reader() {
      @Override
      public byte[] get(byte[] key) throws IOException {
        long slot = mph.getLong(key);
        if (slot < 0 || slot >= n) {
          return null;
        }
        long start = offsets == null ? slot * fixedBytes : offsets.getLong(slot);
        long end = offsets == null ? start + fixedBytes : offsets.getLong(slot + 1);
        byte[] record = new byte[(int) (end - start)];
        data.read(start, record, 0, record.length);
        long varint = RecordFormat.decodeVarint(record, 0, record.length);
        int header = (int) (varint >>> 32);
        int keyLength = (int) varint;
        if (!Arrays.equals(record, header, header + keyLength, key, 0, key.length)) {
          return null;
        }
        return Arrays.copyOfRange(record, header + keyLength, record.length);
      }


      @Override
      public long indexBytes() {
        return (mph.numBits() + (offsets == null ? 0 : offsets.numBits())) / 8;
      }

      @Override
      public void close() {}
    };
  }
}
