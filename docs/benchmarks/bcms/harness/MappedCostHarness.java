import java.lang.reflect.*;
import java.net.*;
import java.nio.file.*;
import java.util.*;
import java.lang.management.*;

/** Throwaway: per-op CPU ns of CountMinSketch variants (each in its own loader per case), alternating. */
public class MappedCostHarness {
  static final int OPS = 1 << 19;
  public static void main(String[] a) throws Exception {
    String core = a[0];
    String[] names = a[1].split(",");
    String[] dirs = a[2].split(",");
    int pairs = Integer.parseInt(a[3]);
    int width = Integer.parseInt(a[4]);
    int bytes = Integer.parseInt(a[5]);
    String[] cases = {"mem-update","mem-estimate","map-update","map-estimate"};
    long[] items = new long[1 << 20];
    SplittableRandom r = new SplittableRandom(42);
    for (int i = 0; i < items.length; i++) items[i] = r.nextLong();
    Path tmp = Files.createTempDirectory("sk2h");
    // runner[v][c]
    Object[][] sketches = new Object[names.length][cases.length];
    Method[][] ops = new Method[names.length][cases.length];
    for (int v = 0; v < names.length; v++) for (int c = 0; c < cases.length; c++) {
      URLClassLoader l = new URLClassLoader(new URL[]{Paths.get(dirs[v]).toUri().toURL(), Paths.get(core).toUri().toURL()}, MappedCostHarness.class.getClassLoader());
      Class<?> cms = l.loadClass("io.varve.bcms.CountMinSketch");
      Class<?> sp = l.loadClass("io.varve.bcms.SketchParameters");
      Object p = sp.getMethod("ofDimensions", long.class, int.class).invoke(null, (long) width, 5);
      p = sp.getMethod("withSeed", long.class).invoke(p, 7L);
      p = sp.getMethod("withCounterBits", int.class).invoke(p, bytes);
      Object s = cases[c].startsWith("mem") ? cms.getMethod("inMemory", sp).invoke(null, p)
          : cms.getMethod("create", Path.class, sp).invoke(null, tmp.resolve(v + "-" + c), p);
      Class<?> runner = l.loadClass("Runner");
      sketches[v][c] = s;
      ops[v][c] = runner.getMethod(cases[c].endsWith("update") ? "update" : "estimate", Object.class, long[].class, int.class, int.class);
      for (int i = 0; i < 20; i++) ops[v][c].invoke(null, s, items, i * OPS, OPS);
    }
    ThreadMXBean t = ManagementFactory.getThreadMXBean();
    double[][][] ns = new double[names.length][cases.length][pairs];
    int off = 0;
    for (int p = 0; p < pairs; p++) {
      for (int c = 0; c < cases.length; c++) {
        for (int k = 0; k < names.length; k++) {
          int v = (p % 2 == 0) ? k : names.length - 1 - k;
          long t0 = t.getCurrentThreadCpuTime();
          ops[v][c].invoke(null, sketches[v][c], items, off, OPS);
          ns[v][c][p] = (t.getCurrentThreadCpuTime() - t0) / (double) OPS;
        }
      }
      off += OPS;
    }
    for (int c = 0; c < cases.length; c++) {
      StringBuilder sb = new StringBuilder(String.format("%-13s", cases[c]));
      for (int v = 0; v < names.length; v++) sb.append(String.format("  %s %.1f ns", names[v], med(ns[v][c])));
      for (int v = 1; v < names.length; v++) {
        double[] ratio = new double[pairs];
        for (int p = 0; p < pairs; p++) ratio[p] = ns[v][c][p] / ns[0][c][p];
        sb.append(String.format("  %s/%s %.3f", names[v], names[0], med(ratio)));
      }
      System.out.println(sb);
    }
    for (int c = 2; c < cases.length; c++) {
      StringBuilder sb = new StringBuilder(String.format("%-13s gap to in-memory (median of pair differences):", cases[c]));
      for (int v = 0; v < names.length; v++) {
        double[] d = new double[pairs];
        for (int p = 0; p < pairs; p++) d[p] = ns[v][c][p] - ns[v][c - 2][p];
        sb.append(String.format("  %s %+.1f ns", names[v], med(d)));
      }
      for (int v = 1; v < names.length; v++) {
        double[] d = new double[pairs];
        for (int p = 0; p < pairs; p++) d[p] = ns[0][c][p] - ns[v][c][p];
        sb.append(String.format("  base-%s %+.1f ns", names[v], med(d)));
      }
      System.out.println(sb);
    }
  }
  static double med(double[] x) { double[] y = x.clone(); Arrays.sort(y); return y[y.length / 2]; }
}
