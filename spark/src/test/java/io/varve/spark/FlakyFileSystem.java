package io.varve.spark;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;
import org.apache.spark.TaskContext;

/**
 * The local file system under the scheme {@code flaky:}, failing the calls a test asks it to: how
 * the tests make a task fail before, during or after writing its attempt, as a lost executor or a
 * flaky store would. Tests run Spark in local mode, so the rules (static) reach the tasks.
 *
 * <p>Files are created through {@code createNonRecursive} (the writer's way) or {@code create};
 * both count the file, run {@link #before} and ask the rule as operation {@code "create"}, and
 * {@code create}, like {@link RawLocalFileSystem}'s, makes missing parent directories: a writer
 * that used it could bring back a directory its job removed, which a test catches. So does {@code
 * mkdirs} (operation {@code "mkdirs"}), as every Hadoop file system's does.
 */
public final class FlakyFileSystem extends RawLocalFileSystem {
  /** Decides whether a call fails. */
  @FunctionalInterface
  interface Rule {
    /** Whether {@code operation} on {@code path} fails, in a task's {@code attempt} (-1 outside a task). */
    boolean fails(String operation, Path path, int attempt);
  }

  /** What happens just before a file or directory is created, beside the file system (a driver's abort, a pause). */
  @FunctionalInterface
  interface Action {
    /**
     * Runs before {@code operation} ({@code "create"}, {@code "mkdirs"} or {@code "open"}) of {@code path}, or as
     * {@code "delete-listed"} within a recursive delete ({@link #delete}), in a task's {@code
     * attempt} (-1 outside a task).
     */
    void run(String operation, Path path, int attempt) throws IOException;
  }

  static volatile Rule rule = (operation, path, attempt) -> false;

  static volatile Action before = (operation, path, attempt) -> {};

  /** The files each attempt directory's task tried to create, counted before the rule is asked. */
  static final Map<String, AtomicInteger> creates = new ConcurrentHashMap<>();

  static void reset() {
    rule = (operation, path, attempt) -> false;
    before = (operation, path, attempt) -> {};
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

  private static int attempt() {
    TaskContext context = TaskContext.get();
    return context == null ? -1 : context.attemptNumber();
  }

  private static void check(String operation, Path path) throws IOException {
    if (rule.fails(operation, path, attempt())) {
      throw new IOException("flaky: " + operation + " " + path + " fails");
    }
  }

  private static void creating(Path f) throws IOException {
    if (f.getParent().getName().contains(".attempt-")) {
      creates.computeIfAbsent(f.getParent().getName(), name -> new AtomicInteger()).incrementAndGet();
    }
    before.run("create", f, attempt());
    check("create", f);
  }

  @Override
  public boolean mkdirs(Path f) throws IOException {
    before.run("mkdirs", f, attempt());
    check("mkdirs", f);
    return super.mkdirs(f);
  }

  @Override
  public FSDataOutputStream createNonRecursive(Path f, FsPermission permission, EnumSet<CreateFlag> flags, int bufferSize,
      short replication, long blockSize, Progressable progress) throws IOException {
    creating(f);
    return super.createNonRecursive(f, permission, flags, bufferSize, replication, blockSize, progress);
  }

  @Override
  public FSDataOutputStream create(Path f, boolean overwrite, int bufferSize, short replication, long blockSize,
      Progressable progress) throws IOException {
    creating(f);
    return super.create(f, overwrite, bufferSize, replication, blockSize, progress);
  }

  /** Opens as {@link RawLocalFileSystem} does, after {@link #before} as operation {@code "open"} (a source changing under a reader). */
  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    before.run("open", f, attempt());
    check("open", f);
    return super.open(f, bufferSize);
  }

  @Override
  public FileStatus[] listStatus(Path f) throws FileNotFoundException, IOException {
    check("list", f);
    return super.listStatus(f);
  }

  /**
   * Deletes as {@link RawLocalFileSystem}'s does (Hadoop's {@code FileUtil.fullyDelete}; S3A's paged
   * deletes are alike): a directory's children are listed, deleted one by one, and the directory
   * last, which fails, leaving it, if something was created in it since the listing. {@link #before}
   * runs as operation {@code "delete-listed"} between the listing and the deletions, where another
   * thread's creation races the removal.
   */
  @Override
  public boolean delete(Path p, boolean recursive) throws IOException {
    check("delete", p);
    File directory = pathToFile(p);
    if (!recursive || !directory.isDirectory()) {
      return super.delete(p, recursive);
    }
    File[] children = directory.listFiles();
    before.run("delete-listed", p, attempt());
    if (children != null) {
      for (File child : children) {
        delete(new Path(p, child.getName()), true);
      }
    }
    return directory.delete() || !directory.exists();
  }
}
