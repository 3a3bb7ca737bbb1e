package io.varve.examples.dedup;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The dedup pipeline of a WAN optimizer (the BufferHash paper, section 8): streams are cut into
 * chunks by content ({@link FastCdc}), each chunk's SHA-1 is looked up in a {@link ChunkIndex}, and a
 * chunk not found there is recorded with its address. Bytes of chunks found are the redundancy: what
 * the optimizer would replace by a reference.
 *
 * <p>A chunk found is not recorded again: its first address stays (as a content cache keeps the
 * first copy). Memory: the chunker's buffer, whatever the length of the streams.
 *
 * <p>Optionally a reference index is asked the same questions, and every chunk on which the two
 * disagree (seen by one and not the other, or at other addresses) is counted: how a disk-based
 * index is checked against a {@link HashMapChunkIndex}.
 *
 * <p>Not thread-safe: one thread feeds one deduplicator.
 */
public final class Deduplicator {
  /** Bits of an address that hold the offset in its stream: streams up to 1 TiB. */
  public static final int OFFSET_BITS = 40;

  /** Chunks between two looks at the clock for progress reports. */
  private static final int CHUNKS_PER_CLOCK_CHECK = 256;

  private final FastCdc chunker;
  private final ChunkIndex index;
  private final ChunkIndex reference;
  private final MessageDigest sha1;
  private final byte[] buffer;
  private final FastCdc.ChunkConsumer onChunk = this::onChunk;
  private Consumer<DedupStats> progress;
  private long progressIntervalNanos;
  private long nextProgress;

  private int streamId;
  private long files;
  private long bytes;
  private long chunks;
  private long duplicateBytes;
  private long duplicateChunks;
  private long referenceDuplicateBytes;
  private long disagreements;
  private long wrongAddresses;

  /**
   * @param reference an index asked the same questions, for a check; or {@code null}
   */
  public Deduplicator(FastCdc chunker, ChunkIndex index, ChunkIndex reference) {
    this.chunker = chunker;
    this.index = index;
    this.reference = reference;
    this.buffer = new byte[chunker.bufferSize()];
    try {
      this.sha1 = MessageDigest.getInstance("SHA-1");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide SHA-1", e);
    }
  }

  /** Calls {@code listener} with the stats at most once per {@code intervalNanos}, between chunks. */
  public Deduplicator progress(Consumer<DedupStats> listener, long intervalNanos) {
    this.progress = listener;
    this.progressIntervalNanos = intervalNanos;
    this.nextProgress = System.nanoTime() + intervalNanos;
    return this;
  }

  /**
   * Reads {@code in} to its end (without closing it) as the next stream: chunks, fingerprints,
   * looks up and records. Streams are numbered from 0 in the order given; the number is part of
   * each chunk's address.
   */
  public void add(InputStream in) throws IOException {
    chunker.chunk(in, buffer, onChunk);
    streamId++;
    files++;
  }

  private void onChunk(byte[] data, int offset, int length, long position) throws IOException {
    sha1.update(data, offset, length);
    byte[] fingerprint = sha1.digest();
    byte[] found = index.get(fingerprint);
    if (found == null) {
      index.put(fingerprint, address(streamId, position));
    } else {
      duplicateBytes += length;
      duplicateChunks++;
    }
    if (reference != null) {
      byte[] expected = reference.get(fingerprint);
      if (expected == null) {
        reference.put(fingerprint, address(streamId, position));
      } else {
        referenceDuplicateBytes += length;
      }
      if ((found == null) != (expected == null)) {
        disagreements++;
      } else if (found != null && !Arrays.equals(found, expected)) {
        wrongAddresses++;
      }
    }
    bytes += length;
    chunks++;
    if (progress != null && chunks % CHUNKS_PER_CLOCK_CHECK == 0 && System.nanoTime() - nextProgress >= 0) {
      nextProgress = System.nanoTime() + progressIntervalNanos;
      progress.accept(stats());
    }
  }

  /** What has been seen so far. */
  public DedupStats stats() {
    return new DedupStats(files, bytes, chunks, duplicateBytes, duplicateChunks,
        reference == null ? -1 : referenceDuplicateBytes, disagreements, wrongAddresses);
  }

  /**
   * The address of a chunk, 8 bytes big-endian: the stream's number in the high 24 bits, the
   * chunk's offset in its stream in the low {@value #OFFSET_BITS}. Stream numbers wrap after
   * 2^24 streams and offsets after 1 TiB: an address names where a chunk was, for a content cache;
   * finding duplicates does not need it.
   */
  public static byte[] address(long stream, long offset) {
    long value = stream << OFFSET_BITS | (offset & ((1L << OFFSET_BITS) - 1));
    byte[] address = new byte[8];
    for (int i = 7; i >= 0; i--) {
      address[i] = (byte) value;
      value >>>= 8;
    }
    return address;
  }
}
