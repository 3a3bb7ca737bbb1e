package io.varve.builder;

/**
 * Sorts parallel arrays of 128-bit hashes ({@code hi}, {@code lo}) and payloads into hash order
 * (unsigned, {@code hi} first), stably: records with equal hashes keep their input order, which
 * is what "last wins" needs. One counting pass on the top bits spreads uniformly hashed records
 * over buckets of about eight; buckets are finished by insertion sort, or by merge sort when they
 * are large (hashes that are not uniform must not make the sort quadratic).
 *
 * <p>Stateless and thread-safe; the arrays belong to the caller.
 */
final class HashOrderSort {
  private static final int INSERTION_LIMIT = 32;
  private static final int MAX_BUCKET_BITS = 20;

  private HashOrderSort() {}

  /**
   * Sorts {@code [0, n)} of the arrays, using the scratch arrays (at least {@code n} long);
   * returns true when the sorted records ended in the scratch arrays instead of the inputs.
   */
  static boolean sort(long[] hi, long[] lo, long[] payload, long[] hiScratch, long[] loScratch, long[] payloadScratch, int n) {
    return sort(hi, lo, payload, hiScratch, loScratch, payloadScratch, n, 0);
  }

  /**
   * {@link #sort} for hashes that share their top {@code sharedPrefixBits} bits (the records of one
   * hash-prefix partition): the counting pass spreads them by the bits that follow.
   */
  static boolean sort(
      long[] hi, long[] lo, long[] payload, long[] hiScratch, long[] loScratch, long[] payloadScratch, int n, int sharedPrefixBits) {
    if (n < 2) {
      return false;
    }
    int bits = Math.max(1, Math.min(MAX_BUCKET_BITS, 31 - Integer.numberOfLeadingZeros(n) - 2));
    int shift = 64 - bits;
    // Past 64 - bits shared bits the counting pass degrades to one bucket, still correct.
    int skip = Math.min(sharedPrefixBits, 64 - bits);
    int[] starts = new int[(1 << bits) + 1];
    for (int i = 0; i < n; i++) {
      starts[(int) ((hi[i] << skip) >>> shift) + 1]++;
    }
    for (int b = 0; b < 1 << bits; b++) {
      starts[b + 1] += starts[b];
    }
    int[] next = starts.clone();
    for (int i = 0; i < n; i++) {
      int target = next[(int) ((hi[i] << skip) >>> shift)]++;
      hiScratch[target] = hi[i];
      loScratch[target] = lo[i];
      payloadScratch[target] = payload[i];
    }
    for (int b = 0; b < 1 << bits; b++) {
      int from = starts[b];
      int to = starts[b + 1];
      if (to - from <= INSERTION_LIMIT) {
        insertionSort(hiScratch, loScratch, payloadScratch, from, to);
      } else {
        mergeSort(hiScratch, loScratch, payloadScratch, hi, lo, payload, from, to);
      }
    }
    return true;
  }

  static boolean less(long hi1, long lo1, long hi2, long lo2) {
    return hi1 != hi2 ? Long.compareUnsigned(hi1, hi2) < 0 : Long.compareUnsigned(lo1, lo2) < 0;
  }

  private static void insertionSort(long[] hi, long[] lo, long[] payload, int from, int to) {
    for (int i = from + 1; i < to; i++) {
      long h = hi[i];
      long l = lo[i];
      long p = payload[i];
      int j = i - 1;
      while (j >= from && less(h, l, hi[j], lo[j])) {
        hi[j + 1] = hi[j];
        lo[j + 1] = lo[j];
        payload[j + 1] = payload[j];
        j--;
      }
      hi[j + 1] = h;
      lo[j + 1] = l;
      payload[j + 1] = p;
    }
  }

  /** Stable merge sort of {@code [from, to)} of the first arrays, using the second as scratch. */
  private static void mergeSort(long[] hi, long[] lo, long[] payload, long[] hiTmp, long[] loTmp, long[] payloadTmp, int from, int to) {
    if (to - from <= INSERTION_LIMIT) {
      insertionSort(hi, lo, payload, from, to);
      return;
    }
    int mid = (from + to) >>> 1;
    mergeSort(hi, lo, payload, hiTmp, loTmp, payloadTmp, from, mid);
    mergeSort(hi, lo, payload, hiTmp, loTmp, payloadTmp, mid, to);
    if (!less(hi[mid], lo[mid], hi[mid - 1], lo[mid - 1])) {
      return;
    }
    System.arraycopy(hi, from, hiTmp, from, to - from);
    System.arraycopy(lo, from, loTmp, from, to - from);
    System.arraycopy(payload, from, payloadTmp, from, to - from);
    int i = from;
    int j = mid;
    for (int k = from; k < to; k++) {
      // Taking from the left run on ties keeps the sort stable.
      if (j >= to || (i < mid && !less(hiTmp[j], loTmp[j], hiTmp[i], loTmp[i]))) {
        hi[k] = hiTmp[i];
        lo[k] = loTmp[i];
        payload[k] = payloadTmp[i++];
      } else {
        hi[k] = hiTmp[j];
        lo[k] = loTmp[j];
        payload[k] = payloadTmp[j++];
      }
    }
  }
}
