package io.varve.bcms;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;

/**
 * Unmaps a file mapping at once instead of when the garbage collector finds it, so that closing a
 * sketch releases its address space and lets its file be deleted on every platform. Uses {@code
 * sun.misc.Unsafe.invokeCleaner} (module {@code jdk.unsupported}, open without flags on JDK 17 and
 * later); where that is missing, the mapping is left to the collector. Thread-safe.
 */
final class Unmapper {
  private static final MethodHandle INVOKE_CLEANER = findInvokeCleaner();

  private Unmapper() {}

  /** Unmaps {@code buffer}; it must never be touched again, or the JVM may crash. */
  static void unmap(MappedByteBuffer buffer) {
    if (INVOKE_CLEANER == null) {
      return;
    }
    try {
      INVOKE_CLEANER.invokeExact((ByteBuffer) buffer);
    } catch (Throwable e) {
      // Leave the mapping to the collector; nothing is lost but address space until then.
    }
  }

  private static MethodHandle findInvokeCleaner() {
    try {
      Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
      Field field = unsafeClass.getDeclaredField("theUnsafe");
      field.setAccessible(true);
      Object unsafe = field.get(null);
      return MethodHandles.lookup()
          .findVirtual(unsafeClass, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
          .bindTo(unsafe);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
