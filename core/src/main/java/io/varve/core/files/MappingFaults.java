package io.varve.core.files;

/**
 * The JVM's report of a faulted access to a memory mapping whose file was truncated (or replaced in
 * place) under it, and how to make that report arrive where the owner of the mapping can catch it.
 * A read or write of a mapped page the file no longer holds raises an {@link InternalError} ("a
 * fault occurred in an unsafe memory access operation"); in compiled code the JVM skips the faulting
 * instruction (a load then yields whatever its register held) and keeps the error pending until the
 * thread next returns from a call into its runtime, which may be after the accessing method
 * returned, in its caller's code. Owners of mappings catch the error around their accesses and call
 * {@link #deliverPending} before leaving the guarded region. Thread-safe (stateless).
 */
public final class MappingFaults {
  private MappingFaults() {}

  /** Whether {@code error} is the JVM's report of a faulted access to a mapping. */
  public static boolean isUnsafeAccess(Throwable error) {
    return error instanceof InternalError
        && error.getMessage() != null
        && error.getMessage().contains("unsafe memory access");
  }

  /**
   * Gives a pending fault of this thread's accesses to a mapping its chance to be thrown here, as
   * the {@link InternalError} the caller's guard catches, so that a result made of a faulted access
   * never leaves the guarded region. Costs one call into the JVM's runtime (tens of nanoseconds).
   *
   * <p>A two-dimensional array whose sizes the compiler cannot see is always allocated by such a
   * call (HotSpot's {@code OptoRuntime::multianewarray2_C}), whose return delivers the error; a call
   * into native code ({@code Thread.yield}) does not. The reader's {@code LateFaultDeliveryTest}
   * pins this.
   */
  public static void deliverPending() {
    runtimeCallResult = new byte[runtimeCallRows][0];
  }

  /** 0, not final: sizes the compiler can see would let it allocate the array without the runtime. */
  @SuppressWarnings("FieldMayBeFinal")
  private static int runtimeCallRows = 0;

  /** Where the runtime call's array goes (plain: the call, not the array, is the point). */
  @SuppressWarnings("unused")
  private static Object runtimeCallResult;

  /**
   * On the failure path, after a fault was caught: the JVM may still hold an error for another
   * faulting access of the same operation and deliver it at its next check, in the caller's code.
   * Gives it checks here, where it is known for what it is, and returns how many it delivered (each
   * the same truncation, already reported). Errors of another kind are thrown.
   *
   * <p>A fault in compiled code may be kept pending (JDK 17 always, JDK 25 sometimes) until the
   * thread comes back from a call into the JVM's runtime. An array above the compilers' inline
   * allocation limit is always allocated by the runtime, whose return delivers the error.
   */
  public static int absorbLate() {
    int delivered = 0;
    for (int i = 0; i < 2; i++) {
      try {
        runtimeAllocation = new long[RUNTIME_ALLOCATED_LONGS];
      } catch (InternalError late) {
        if (!isUnsafeAccess(late)) {
          throw late;
        }
        delivered++;
      } finally {
        runtimeAllocation = null;
      }
    }
    return delivered;
  }

  /**
   * Above HotSpot's {@code FastAllocateSizeLimit} (128 Ki words), so that the compilers never
   * allocate it inline. Only allocated when a mapping failed.
   */
  private static final int RUNTIME_ALLOCATED_LONGS = 128 * 1024 + 1;

  /** Where the runtime's array goes, so that the compiler cannot leave it out. */
  @SuppressWarnings("unused")
  private static volatile long[] runtimeAllocation;
}
