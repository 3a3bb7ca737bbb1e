package io.varve.benchmarks;

import it.unimi.dsi.bits.TransformationStrategies;
import it.unimi.dsi.sux4j.mph.GOVMinimalPerfectHashFunction;
import java.io.File;
import java.io.IOException;
import java.util.AbstractList;
import java.util.List;
import java.util.function.IntFunction;

/** Builds sux4j's GOV minimal perfect hash functions over byte-array keys, as the benchmarks compare them. Stateless. */
public final class GovFunctions {
  private GovFunctions() {}

  /**
   * A GOV function over the {@code n} keys {@code key.apply(i)}, taken as raw bytes ({@link
   * TransformationStrategies#rawByteArray()}). The build spills to {@code tempDir} (null: {@code
   * java.io.tmpdir}).
   */
  public static GOVMinimalPerfectHashFunction<byte[]> build(int n, IntFunction<byte[]> key, File tempDir)
      throws IOException {
    // A view: the keys are made on the fly, never all held at once.
    List<byte[]> keys =
        new AbstractList<>() {
          @Override
          public byte[] get(int index) {
            return key.apply(index);
          }

          @Override
          public int size() {
            return n;
          }
        };
    GOVMinimalPerfectHashFunction.Builder<byte[]> builder =
        new GOVMinimalPerfectHashFunction.Builder<byte[]>()
            .keys(keys)
            .transform(TransformationStrategies.rawByteArray());
    if (tempDir != null) {
      builder.tempDir(tempDir);
    }
    return builder.build();
  }
}
