import io.varve.bcms.CountMinSketch;
import io.varve.bcms.SketchParameters;
import java.lang.management.*;
import java.nio.file.*;
import java.util.*;

/** Throwaway: per-item CPU ns of update/estimate one call per item against updateAll/estimateAll, alternating. */
public class BatchHarness {
  static final int OPS = 1 << 19;
  public static void main(String[] a) throws Exception {
    int pairs = Integer.parseInt(a[0]);
    int batch = Integer.parseInt(a[1]);
    long[] items = new SplittableRandom(42).longs(1 << 20).toArray();
    long[][] slices = new long[items.length / batch][];
    for (int s = 0; s < slices.length; s++) slices[s] = Arrays.copyOfRange(items, s * batch, (s + 1) * batch);
    long[] out = new long[batch];
    Path tmp = Files.createTempDirectory("bh");
    SketchParameters p = SketchParameters.ofDimensions(65536, 5).withSeed(7);
    String[] kinds = {"mem", "map"};
    CountMinSketch[] sk = {CountMinSketch.inMemory(p), CountMinSketch.create(tmp.resolve("s.cms"), p)};
    ThreadMXBean t = ManagementFactory.getThreadMXBean();
    String[] ops = {"update", "updateAll", "estimate", "estimateAll"};
    double[][][] ns = new double[2][4][pairs];
    for (int w = 0; w < 10; w++) for (int k = 0; k < 2; k++) for (int o = 0; o < 4; o++) run(sk[k], o, items, slices, out, w * OPS, batch);
    for (int pr = 0; pr < pairs; pr++) {
      for (int k = 0; k < 2; k++) for (int oo = 0; oo < 4; oo++) {
        int o = pr % 2 == 0 ? oo : oo ^ 1; // single/batch order alternates
        long t0 = t.getCurrentThreadCpuTime();
        run(sk[k], o, items, slices, out, pr * OPS, batch);
        ns[k][o][pr] = (t.getCurrentThreadCpuTime() - t0) / (double) OPS;
      }
    }
    for (int k = 0; k < 2; k++) for (int o = 0; o < 4; o += 2) {
      double[] r = new double[pairs];
      for (int pr = 0; pr < pairs; pr++) r[pr] = ns[k][o + 1][pr] / ns[k][o][pr];
      System.out.printf("%s %-8s one call per item %.1f ns, %s (batches of %d) %.1f ns per item, ratio median %.3f (min %.3f max %.3f)%n",
          kinds[k], ops[o], med(ns[k][o]), ops[o + 1], batch, med(ns[k][o + 1]), med(r), Arrays.stream(r).min().getAsDouble(), Arrays.stream(r).max().getAsDouble());
    }
    for (int o = 0; o < 4; o++) {
      double[] d = new double[pairs];
      for (int pr = 0; pr < pairs; pr++) d[pr] = ns[1][o][pr] - ns[0][o][pr];
      System.out.printf("mapped - in memory, %-11s median of pair differences %+.1f ns%n", ops[o], med(d));
    }
    sk[0].close(); sk[1].close();
  }
  static long sink;
  static void run(CountMinSketch s, int o, long[] items, long[][] slices, long[] out, int off, int batch) {
    int mask = items.length - 1;
    switch (o) {
      case 0 -> { for (int i = 0; i < OPS; i++) s.update(items[(off + i) & mask], 1); }
      case 1 -> { int first = (off & mask) / batch; for (int b = 0; b < OPS / batch; b++) s.updateAll(slices[(first + b) % slices.length], 1); }
      case 2 -> { long sum = 0; for (int i = 0; i < OPS; i++) sum += s.estimate(items[(off + i) & mask]); sink += sum; }
      case 3 -> { int first = (off & mask) / batch; for (int b = 0; b < OPS / batch; b++) { s.estimateAll(slices[(first + b) % slices.length], out); sink += out[0]; } }
    }
  }
  static double med(double[] x) { double[] y = x.clone(); Arrays.sort(y); return y[y.length / 2]; }
}
