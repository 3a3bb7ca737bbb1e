package io.varve.benchmarks.bcms;

import io.varve.bcms.CountMinSketch;
import io.varve.bcms.SketchParameters;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;

/**
 * An in-memory count-min sketch of 64-bit items under benchmark: Varve's {@link CountMinSketch} on
 * the heap, or Apache DataSketches' {@code org.apache.datasketches.count.CountMinSketch}. Not
 * thread-safe.
 *
 * <p>DataSketches added its count-min sketch in 9.0.0, built as Java 25 bytecode, while this module
 * compiles for Java 17; so it is called through method handles held in {@code static final} fields,
 * which the JIT folds into direct calls, and it can run only on JDK 25 or later. Its constructor is
 * package-private in 9.0.0 (no public factory creates an empty sketch), so it is opened by
 * reflection.
 */
interface InMemoryCounter {
  void update(long item, long weight);

  long estimate(long item);

  /** Bytes of counters. */
  long sizeBytes();

  /** The sketch named {@code "varve"} or {@code "datasketches"}, {@code width} x {@code depth}, 64-bit counters. */
  static InMemoryCounter of(String name, int width, int depth, long seed) {
    switch (name) {
      case "varve":
        return new Varve(CountMinSketch.inMemory(SketchParameters.ofDimensions(width, depth).withSeed(seed)));
      case "datasketches":
        return new DataSketches(width, depth, seed);
      default:
        throw new IllegalArgumentException("unknown sketch " + name + "; use varve or datasketches");
    }
  }

  /** Varve's plain sketch on the heap. */
  final class Varve implements InMemoryCounter {
    private final CountMinSketch sketch;

    Varve(CountMinSketch sketch) {
      this.sketch = sketch;
    }

    @Override
    public void update(long item, long weight) {
      sketch.update(item, weight);
    }

    @Override
    public long estimate(long item) {
      return sketch.estimate(item);
    }

    @Override
    public long sizeBytes() {
      return sketch.sizeBytes();
    }
  }

  /** DataSketches 9.0.0's {@code CountMinSketch}. */
  final class DataSketches implements InMemoryCounter {
    private final Object sketch;
    private final long sizeBytes;

    DataSketches(int width, int depth, long seed) {
      if (Runtime.version().feature() < 25) {
        throw new UnsupportedOperationException("DataSketches' CountMinSketch (datasketches-java 9.0.0) is Java 25 "
            + "bytecode; run this benchmark on JDK 25 or later (this is JDK " + Runtime.version() + ")");
      }
      try {
        Constructor<?> constructor = Handles.SKETCH_CLASS.getDeclaredConstructor(byte.class, int.class, long.class);
        constructor.setAccessible(true);
        this.sketch = constructor.newInstance((byte) depth, width, seed);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot create DataSketches' CountMinSketch", e);
      }
      this.sizeBytes = (long) width * depth * Long.BYTES;
    }

    @Override
    public void update(long item, long weight) {
      try {
        Handles.UPDATE.invokeExact(sketch, item, weight);
      } catch (Throwable e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public long estimate(long item) {
      try {
        return (long) Handles.ESTIMATE.invokeExact(sketch, item);
      } catch (Throwable e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public long sizeBytes() {
      return sizeBytes;
    }
  }

  /** The handles, resolved on first use (only on JDK 25+, where the class loads). */
  final class Handles {
    static final Class<?> SKETCH_CLASS;
    static final MethodHandle UPDATE;
    static final MethodHandle ESTIMATE;

    static {
      try {
        SKETCH_CLASS = Class.forName("org.apache.datasketches.count.CountMinSketch");
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        UPDATE = lookup.findVirtual(SKETCH_CLASS, "update", MethodType.methodType(void.class, long.class, long.class))
            .asType(MethodType.methodType(void.class, Object.class, long.class, long.class));
        ESTIMATE = lookup.findVirtual(SKETCH_CLASS, "getEstimate", MethodType.methodType(long.class, long.class))
            .asType(MethodType.methodType(long.class, Object.class, long.class));
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private Handles() {}
  }
}
