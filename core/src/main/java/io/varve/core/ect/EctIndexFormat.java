package io.varve.core.ect;

import io.varve.core.bits.LongBigArray;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import io.varve.core.format.EnvelopeInput;
import io.varve.core.format.EnvelopeOutput;
import io.varve.core.format.WordsIO;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The one owner of the {@link EctIndex}'s serialized form; {@link EctIndex#writeTo} and {@link
 * EctIndex#readFrom} are its writer and reader. All integers big-endian:
 *
 * <pre>
 * EctIndex := Header Directory:BucketDirectory Trie Footer
 * Header   := magic:int32 (0x56454354, "VECT") version:int32 (1 or 2)     (the {@link #ENVELOPE})
 *             flags:int32 (bit 0: sparse; others 0)
 *             Knobs:EctParameters                 (bucketSize:int32 huffmanMax:int32 skipLevels:int32)
 *             keyCount:int64 bucketCount:int64 trieBits:int64
 *             (version 1: bucketCount = max(1, ceil(keyCount / bucketSize));
 *              version 2: bucketCount &gt; that, at most 2^50: an index sized for more keys than it
 *              got, as a merge that drops keys builds; written only when version 1 cannot say it)
 * Trie     := words:int64 word:int64^words        (ceil(trieBits / 64) + 1 words, bits MSB first)
 * Footer   := crc32c:int32                        (CRC32C of every preceding byte)
 * </pre>
 *
 * Stateless; thread-safe.
 */
final class EctIndexFormat {
  /** The version whose bucket count follows from the key count. */
  static final int VERSION_EXACT_BUCKETS = 1;
  /** The version whose bucket count may exceed that of its key count (sized for an upper bound). */
  static final int VERSION_FREE_BUCKETS = 2;
  /** Magic "VECT", versions 1 and 2, a CRC32C footer. */
  static final Envelope ENVELOPE =
      Envelope.builder("ECT index").magic(0x56454354).versions(VERSION_EXACT_BUCKETS, VERSION_FREE_BUCKETS).build();
  /** More buckets than any index of this library can need; bounds the directory arithmetic. */
  static final long MAX_BUCKET_COUNT = 1L << 50;
  static final int FLAG_SPARSE = 1;
  /** Bytes of the header after the envelope's: flags, knobs, three counts. */
  private static final int FIELDS_BYTES = 4 * Integer.BYTES + 3 * Long.BYTES;

  private EctIndexFormat() {}

  /** The number of bytes {@link #write} writes for {@code index}. */
  static long serializedBytes(EctIndex index) {
    long trieBytes = Long.BYTES + Long.BYTES * index.trieWords().length();
    return ENVELOPE.headerLength() + FIELDS_BYTES + index.directory().serializedBytes() + trieBytes
        + ENVELOPE.footerLength();
  }

  /** Writes {@code index}; does not close {@code out}. */
  static void write(EctIndex index, OutputStream out) throws IOException {
    EctParameters parameters = index.parameters();
    boolean exact = index.bucketCount() == parameters.bucketCount(index.size());
    EnvelopeOutput data = ENVELOPE.output(out, exact ? VERSION_EXACT_BUCKETS : VERSION_FREE_BUCKETS);
    data.writeInt(index.isSparse() ? FLAG_SPARSE : 0);
    parameters.writeKnobs(data);
    data.writeLong(index.size());
    data.writeLong(index.bucketCount());
    data.writeLong(index.trieBits());
    index.directory().writeTo(data);
    WordsIO.write(data, index.trieWords());
    data.finish();
  }

  /**
   * Reads an index written by {@link #write}, validating its header, every size and its checksum;
   * a sparse index needs the same {@code blocks} it was built with ({@code null} for a dense index).
   *
   * @throws CorruptStoreException on damaged, truncated or foreign input, or a dense/sparse mismatch
   */
  static EctIndex read(InputStream in, BlockBoundaries blocks) throws IOException {
    EnvelopeInput data = ENVELOPE.input(in, null);
    int version = data.version();
    int flags = WordsIO.readInt(data, "ECT flags");
    CorruptStoreException.check((flags & ~FLAG_SPARSE) == 0, "unknown ECT flags " + flags);
    boolean sparse = (flags & FLAG_SPARSE) != 0;
    if (sparse != (blocks != null)) {
      throw new CorruptStoreException(
          sparse ? "a sparse ECT index needs block boundaries to be read" : "not a sparse ECT index");
    }
    EctParameters parameters = EctParameters.readKnobs(data);
    long keyCount = WordsIO.readLong(data, "ECT key count");
    long bucketCount = WordsIO.readLong(data, "ECT bucket count");
    CorruptStoreException.check(keyCount >= 0, "negative ECT key count " + keyCount);
    long exactBuckets = parameters.bucketCount(keyCount);
    CorruptStoreException.check(
        version == VERSION_EXACT_BUCKETS
            ? bucketCount == exactBuckets
            : bucketCount > exactBuckets && bucketCount <= MAX_BUCKET_COUNT,
        "ECT bucket count " + bucketCount + " does not fit " + keyCount + " keys (index version " + version + ")");
    long trieBits = WordsIO.readLong(data, "ECT trie bit count");
    BucketDirectory directory = BucketDirectory.readFrom(data, keyCount, bucketCount, trieBits);
    LongBigArray trie = WordsIO.read(data, EctIndex.trieWords(trieBits), "ECT trie");
    data.checkFooter();
    return new EctIndex(parameters, keyCount, bucketCount, trieBits, directory, trie, blocks);
  }
}
