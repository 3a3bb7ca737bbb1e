package io.varve.benchmarks.peers;

import it.unimi.dsi.fastutil.ints.IntArrays;
import java.util.Arrays;

/** Records held in arrays (rows read from a file). Immutable once built; thread-safe. */
final class ExplicitRecords implements RecordSet {
  private final byte[][] keys;
  private final byte[][] values;
  private final int fixedKeyBytes;
  private final int fixedValueBytes;

  /** Takes ownership of both arrays; keys must be distinct. */
  ExplicitRecords(byte[][] keys, byte[][] values) {
    if (keys.length != values.length) {
      throw new IllegalArgumentException(keys.length + " keys but " + values.length + " values");
    }
    this.keys = keys;
    this.values = values;
    this.fixedKeyBytes = commonLength(keys);
    this.fixedValueBytes = commonLength(values);
  }

  private static int commonLength(byte[][] arrays) {
    for (byte[] array : arrays) {
      if (array.length != arrays[0].length) {
        return -1;
      }
    }
    return arrays.length == 0 ? -1 : arrays[0].length;
  }

  @Override
  public int fixedKeyBytes() {
    return fixedKeyBytes;
  }

  @Override
  public int fixedValueBytes() {
    return fixedValueBytes;
  }

  @Override
  public long size() {
    return keys.length;
  }

  @Override
  public byte[] key(long j) {
    return keys[Math.toIntExact(j)].clone();
  }

  @Override
  public byte[] value(long j) {
    return values[Math.toIntExact(j)].clone();
  }

  @Override
  public void forEach(RecordVisitor visitor) throws Exception {
    for (int j = 0; j < keys.length; j++) {
      visitor.accept(keys[j].clone(), values[j].clone());
    }
  }

  @Override
  public void forEachSorted(RecordVisitor visitor) throws Exception {
    int[] order = new int[keys.length];
    Arrays.setAll(order, j -> j);
    IntArrays.parallelQuickSort(order, (a, b) -> Arrays.compareUnsigned(keys[a], keys[b]));
    for (int j : order) {
      visitor.accept(keys[j].clone(), values[j].clone());
    }
  }
}
