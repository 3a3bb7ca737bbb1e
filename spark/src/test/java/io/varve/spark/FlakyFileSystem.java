package io.varve.spark;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.util.Progressable;
import org.apache.spark.TaskContext;

/**
 * The local file system under the scheme {@code flaky:}, failing the calls a test asks it to: how
 * the tests make a task fail before, during or after writing its attempt, as a lost executor or a
 * flaky store would. Tests run Spark in local mode, so the rules (static) reach the tasks.
 */
public final class FlakyFileSystem extends RawLocalFileSystem {
  /** Decides whether a call fails. */
  @FunctionalInterface
  interface Rule {
    /** Whether {@code operation} on {@code path} fails, in a task's {@code attempt} (-1 outside a task). */
    boolean fails(String operation, Path path, int attempt);
  }

  static volatile Rule rule = (operation, path, attempt) -> false;

  /** The files each attempt directory's task tried to create, counted before the rule is asked. */
  static final Map<String, AtomicInteger> creates = new ConcurrentHashMap<>();

  static void reset() {
    rule = (operation, path, attempt) -> false;
    creates.clear();
  }

  @Override
  public URI getUri() {
    return URI.create("flaky:///");
  }

  @Override
  public String getScheme() {
    return "flaky";
  }

  private static void check(String operation, Path path) throws IOException {
    TaskContext context = TaskContext.get();
    if (rule.fails(operation, path, context == null ? -1 : context.attemptNumber())) {
      throw new IOException("flaky: " + operation + " " + path + " fails");
    }
  }

  @Override
  public FSDataOutputStream create(Path f, boolean overwrite, int bufferSize, short replication, long blockSize,
      Progressable progress) throws IOException {
    if (f.getParent().getName().contains(".attempt-")) {
      creates.computeIfAbsent(f.getParent().getName(), name -> new AtomicInteger()).incrementAndGet();
    }
    check("create", f);
    return super.create(f, overwrite, bufferSize, replication, blockSize, progress);
  }

  @Override
  public FileStatus[] listStatus(Path f) throws FileNotFoundException, IOException {
    check("list", f);
    return super.listStatus(f);
  }

  @Override
  public boolean delete(Path p, boolean recursive) throws IOException {
    check("delete", p);
    return super.delete(p, recursive);
  }
}
