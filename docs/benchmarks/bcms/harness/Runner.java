import io.varve.bcms.CountMinSketch;
public class Runner {
  public static long update(Object o, long[] items, int off, int n) {
    CountMinSketch s = (CountMinSketch) o;
    for (int i = 0; i < n; i++) s.update(items[(off + i) & (items.length - 1)], 1);
    return 0;
  }
  public static long estimate(Object o, long[] items, int off, int n) {
    CountMinSketch s = (CountMinSketch) o;
    long sum = 0;
    for (int i = 0; i < n; i++) sum += s.estimate(items[(off + i) & (items.length - 1)]);
    return sum;
  }
}
