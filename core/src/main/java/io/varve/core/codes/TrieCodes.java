package io.varve.core.codes;

import io.varve.core.bits.BitWriter;
import io.varve.core.format.CorruptStoreException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The entropy codes of an entropy-coded trie: the code for the symbol {@code s = |Left(T)|} in
 * the context {@code c = |T|}, where {@code |Left(T)| = 0} and {@code |Left(T)| = c} share the
 * symbol 0 (ECT paper, section 2.4).
 *
 * <h2>Contexts {@code 2 <= c <= hmax}: binomial Huffman codes</h2>
 *
 * Symbol {@code s} in {@code [0, c)} has weight {@code C(c, s)} for {@code s >= 1} and weight 2
 * for {@code s = 0} (the two one-sided splits). Code lengths are those of a Huffman tree built
 * from the exact integer weights, always merging the two lightest nodes, ties broken by the lower
 * node id (leaves are numbered by symbol, merged nodes from {@code c} upwards in creation order).
 * Lengths over {@value #MAX_CODE_LENGTH} bits are limited by the procedure of JPEG (ITU T.81)
 * Annex K.3. The multiset of lengths is then assigned to the symbols in order of decreasing
 * weight (ties: smaller symbol first), and codes are canonical: ordered by (length, symbol),
 * consecutive integers, most significant bit first.
 *
 * <h2>Contexts {@code c > hmax}: Exp-Golomb centred on {@code c/2}</h2>
 *
 * With {@code t = s - floor(c / 2)}, {@code z = 2t} for {@code t >= 0} and {@code -2t - 1}
 * otherwise, order {@code k = max(0, floor(log2 c) / 2 - 1)} and {@code v = z + 2^k}: the code
 * is {@code bitLength(v) - k - 1} zero bits followed by {@code v} in {@code bitLength(v)} bits.
 *
 * <p>Decoding is table driven: the first up to {@value #PRIMARY_BITS} bits index a per-context
 * table, longer Huffman codes fall back to a canonical search by length; Exp-Golomb codes are
 * decoded with {@link Long#numberOfLeadingZeros}. Instances are immutable and thread-safe;
 * {@link #forHuffmanMax} caches one per {@code hmax}.
 */
public final class TrieCodes {
  /** The largest {@code hmax} supported. */
  public static final int MAX_HUFFMAN_CONTEXT = 256;
  /** Huffman codes are limited to this many bits. */
  public static final int MAX_CODE_LENGTH = 32;
  /** Bits used to index the primary decoding table of a context. */
  static final int PRIMARY_BITS = 9;

  private static final ConcurrentHashMap<Integer, TrieCodes> CACHE = new ConcurrentHashMap<>();

  private final int huffmanMax;
  /** Per context c: offset of symbol 0 in {@link #codeWords} and {@link #codeLengths}. */
  private final int[] symbolBase;
  private final long[] codeWords;
  private final byte[] codeLengths;
  /** Per context c: offset of its table in {@link #primary} {@code << 8 | (64 - primary bits)}. */
  private final int[] primaryIndex;
  /** Entries {@code symbol << 8 | length}; 0 sends the decoder to the slow path. */
  private final char[] primary;
  private final CanonicalCode[] canonical;

  private TrieCodes(int huffmanMax) {
    this.huffmanMax = huffmanMax;
    int contexts = Math.max(huffmanMax + 1, 2);
    symbolBase = new int[contexts];
    primaryIndex = new int[contexts];
    canonical = new CanonicalCode[contexts];
    int symbolTotal = 0;
    int tableTotal = 0;
    for (int c = 2; c <= huffmanMax; c++) {
      canonical[c] = CanonicalCode.binomial(c);
      symbolBase[c] = symbolTotal;
      symbolTotal += c;
      int bits = Math.min(PRIMARY_BITS, canonical[c].maxLength);
      primaryIndex[c] = tableTotal << 8 | (64 - bits);
      tableTotal += 1 << bits;
    }
    codeWords = new long[symbolTotal];
    codeLengths = new byte[symbolTotal];
    primary = new char[tableTotal];
    for (int c = 2; c <= huffmanMax; c++) {
      CanonicalCode code = canonical[c];
      int bits = 64 - (primaryIndex[c] & 0xFF);
      int table = primaryIndex[c] >>> 8;
      for (int s = 0; s < c; s++) {
        int length = code.lengths[s];
        codeWords[symbolBase[c] + s] = code.codes[s];
        codeLengths[symbolBase[c] + s] = (byte) length;
        if (length <= bits) {
          int first = (int) (code.codes[s] << (bits - length));
          Arrays.fill(primary, table + first, table + first + (1 << (bits - length)), (char) (s << 8 | length));
        }
      }
    }
  }

  /** The codes for a given {@code hmax} in {@code [1, MAX_HUFFMAN_CONTEXT]} (cached). */
  public static TrieCodes forHuffmanMax(int hmax) {
    if (hmax < 1 || hmax > MAX_HUFFMAN_CONTEXT) {
      throw new IllegalArgumentException(
          "hmax must be in [1, " + MAX_HUFFMAN_CONTEXT + "]: " + hmax);
    }
    return CACHE.computeIfAbsent(hmax, TrieCodes::new);
  }

  /**
   * Whether context 2 is coded as one-sided = "0", split = "1", so that the representation of a
   * two-key subtrie is a run of zeros closed by a one (true whenever {@code hmax >= 2}).
   */
  public boolean isPairCodeUnary() {
    return huffmanMax >= 2
        && codeLengths[symbolBase[2]] == 1
        && codeWords[symbolBase[2]] == 0
        && codeLengths[symbolBase[2] + 1] == 1
        && codeWords[symbolBase[2] + 1] == 1;
  }

  /** The largest context coded with Huffman codes. */
  public int huffmanMax() {
    return huffmanMax;
  }

  /** The length in bits of the code for {@code symbol} in {@code context}. */
  public int length(int context, int symbol) {
    if (context <= huffmanMax) {
      return codeLengths[symbolBase[context] + symbol];
    }
    return ExpGolomb.length(zigzag(symbol, context), expGolombOrder(context));
  }

  /** Appends the code for {@code symbol} ({@code 0 <= symbol < context}) in {@code context >= 2}. */
  public void write(BitWriter out, int context, int symbol) {
    if (context <= huffmanMax) {
      int i = symbolBase[context] + symbol;
      out.write(codeWords[i], codeLengths[i]);
      return;
    }
    ExpGolomb.write(out, zigzag(symbol, context), expGolombOrder(context));
  }

  /**
   * Decodes the code at the head of {@code peek} (the next 64 bits of the stream, first bit in the
   * most significant position) in {@code context >= 2}.
   *
   * @return {@code symbol << 8 | codeLength}
   * @throws CorruptStoreException when the bits are no valid code in this context
   */
  public long decode(int context, long peek) {
    if (context <= huffmanMax) {
      int index = primaryIndex[context];
      int entry = primary[(index >>> 8) + (int) (peek >>> index)];
      if (entry != 0) {
        return entry;
      }
      return canonical[context].decodeLong(peek, 64 - (index & 0xFF));
    }
    return decodeExpGolomb(context, peek);
  }

  private static long decodeExpGolomb(int context, long peek) {
    long decoded = ExpGolomb.decode(peek, expGolombOrder(context));
    long symbol = ExpGolomb.unzigzag(decoded >>> 8) + (context >>> 1);
    if (symbol < 0 || symbol >= context) {
      throw new CorruptStoreException(
          "trie symbol " + symbol + " out of range for context " + context);
    }
    return symbol << 8 | (decoded & 0xFF);
  }

  static int expGolombOrder(int context) {
    return Math.max(0, (31 - Integer.numberOfLeadingZeros(context)) / 2 - 1);
  }

  /** Symbol {@code s} as a zigzag-mapped deviation from {@code floor(c / 2)}. */
  private static long zigzag(int symbol, int context) {
    return ExpGolomb.zigzag(symbol - (context >>> 1));
  }

  /** Bytes of heap held by the tables. */
  public long ramBytesUsed() {
    long bytes = 64 + 4L * (symbolBase.length + primaryIndex.length) + 2L * primary.length + 8L * codeWords.length;
    bytes += codeLengths.length;
    for (CanonicalCode code : canonical) {
      if (code != null) {
        bytes += code.ramBytesUsed();
      }
    }
    return bytes;
  }

  /** One context's canonical Huffman code. */
  private static final class CanonicalCode {
    final int[] lengths;
    final long[] codes;
    final int maxLength;
    /** Per length: first code, number of codes, index of the first symbol in sortedSymbols. */
    final long[] firstCode = new long[MAX_CODE_LENGTH + 1];
    final int[] countByLength = new int[MAX_CODE_LENGTH + 1];
    final int[] firstIndex = new int[MAX_CODE_LENGTH + 1];
    final int[] sortedSymbols;

    private CanonicalCode(int[] lengths) {
      int n = lengths.length;
      this.lengths = lengths;
      this.codes = new long[n];
      Integer[] order = new Integer[n];
      for (int s = 0; s < n; s++) {
        order[s] = s;
      }
      Arrays.sort(order, Comparator.<Integer>comparingInt(s -> lengths[s]).thenComparingInt(s -> s));
      sortedSymbols = new int[n];
      long code = 0;
      int previousLength = lengths[order[0]];
      int max = 0;
      for (int i = 0; i < n; i++) {
        int s = order[i];
        int length = lengths[s];
        code <<= length - previousLength;
        previousLength = length;
        if (countByLength[length] == 0) {
          firstCode[length] = code;
          firstIndex[length] = i;
        }
        countByLength[length]++;
        codes[s] = code++;
        sortedSymbols[i] = s;
        max = Math.max(max, length);
      }
      maxLength = max;
    }

    static CanonicalCode binomial(int context) {
      BigInteger[] weights = new BigInteger[context];
      weights[0] = BigInteger.TWO;
      BigInteger binomial = BigInteger.ONE;
      for (int s = 1; s < context; s++) {
        binomial = binomial.multiply(BigInteger.valueOf(context - s + 1)).divide(BigInteger.valueOf(s));
        weights[s] = binomial;
      }
      int[] lengthCounts = limitLengths(huffmanLengthCounts(weights));
      Integer[] byWeight = new Integer[context];
      for (int s = 0; s < context; s++) {
        byWeight[s] = s;
      }
      Arrays.sort(
          byWeight,
          Comparator.<Integer, BigInteger>comparing(s -> weights[s]).reversed().thenComparingInt(s -> s));
      int[] lengths = new int[context];
      int length = 1;
      for (Integer s : byWeight) {
        while (lengthCounts[length] == 0) {
          length++;
        }
        lengths[s] = length;
        lengthCounts[length]--;
      }
      return new CanonicalCode(lengths);
    }

    /** Returns, per code length, how many symbols a Huffman code of these weights gives it. */
    private static int[] huffmanLengthCounts(BigInteger[] weights) {
      int n = weights.length;
      int[] parent = new int[2 * n - 1];
      BigInteger[] nodeWeight = Arrays.copyOf(weights, 2 * n - 1);
      PriorityQueue<Integer> queue =
          new PriorityQueue<>(
              Comparator.<Integer, BigInteger>comparing(i -> nodeWeight[i]).thenComparingInt(i -> i));
      for (int i = 0; i < n; i++) {
        queue.add(i);
      }
      for (int next = n; next < 2 * n - 1; next++) {
        int a = queue.poll();
        int b = queue.poll();
        nodeWeight[next] = nodeWeight[a].add(nodeWeight[b]);
        parent[a] = next;
        parent[b] = next;
        queue.add(next);
      }
      int root = 2 * n - 2;
      int[] depth = new int[2 * n - 1];
      for (int i = root - 1; i >= 0; i--) {
        depth[i] = depth[parent[i]] + 1;
      }
      int[] counts = new int[2 * n + 1];
      for (int s = 0; s < n; s++) {
        counts[depth[s]]++;
      }
      return counts;
    }

    /** JPEG (ITU T.81) Annex K.3: moves codes longer than the limit up, keeping Kraft's sum. */
    private static int[] limitLengths(int[] counts) {
      int[] bits = Arrays.copyOf(counts, Math.max(counts.length, MAX_CODE_LENGTH + 1));
      for (int i = bits.length - 1; i > MAX_CODE_LENGTH; i--) {
        while (bits[i] > 0) {
          int j = i - 2;
          while (bits[j] == 0) {
            j--;
          }
          bits[i] -= 2;
          bits[i - 1] += 1;
          bits[j + 1] += 2;
          bits[j] -= 1;
        }
      }
      return Arrays.copyOf(bits, MAX_CODE_LENGTH + 1);
    }

    long decodeLong(long peek, int primaryBits) {
      for (int length = primaryBits + 1; length <= maxLength; length++) {
        long offset = (peek >>> (64 - length)) - firstCode[length];
        if (offset >= 0 && offset < countByLength[length]) {
          return (long) sortedSymbols[firstIndex[length] + (int) offset] << 8 | length;
        }
      }
      throw new CorruptStoreException("invalid Huffman code in trie context " + lengths.length);
    }

    long ramBytesUsed() {
      return 64 + 16L * lengths.length + 16L * (MAX_CODE_LENGTH + 1);
    }
  }
}
