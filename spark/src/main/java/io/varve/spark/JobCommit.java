package io.varve.spark;

import io.varve.core.shard.ShardManifest;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The driver's side of the commit protocol, on one output directory:
 *
 * <ol>
 *   <li>{@link #start}: refuse an output that holds anything (a store is immutable: a re-run writes
 *       a new version elsewhere), create {@code <output>/_temporary/<job>}, where tasks write
 *       their attempt directories, and in it the file {@value #RUNNING};
 *   <li>{@link #publish}, once the job succeeded: rename the attempt Spark accepted for each shard
 *       to {@code <output>/shard-XXXXX} (or its one file to {@code <output>/shard-XXXXX.varve}),
 *       write {@code _MANIFEST} into the job directory and rename it into the output last, then
 *       remove {@code _temporary};
 *   <li>{@link #abort}, on any failure before the manifest is in place: remove the shards renamed
 *       so far and {@code _temporary} (and the output directory if this job created it).
 * </ol>
 *
 * <p>Readers treat a root without {@code _MANIFEST} as unfinished, so a job killed between 2 and 3
 * leaves nothing a reader opens.
 *
 * <p>A task still running once the job is over (a straggler past the driver's wait, a speculative
 * copy) must not leave anything in the output: it creates its files non-recursively, and after its
 * last write to the output it checks {@value #RUNNING}. The removal ({@link #removeJobDirectory})
 * deletes {@value #RUNNING} before the rest, so a task that still finds it wrote before the
 * removal began, which then removes what it wrote; a task that does not find it removes the job
 * directory itself ({@link #removeIfOver}), whatever an earlier removal missed (one listing the
 * directory before the task wrote in it cannot remove it) or the task's {@code mkdirs} made again.
 * The removal that starts last thus starts after every write. Not thread-safe: the driver's thread
 * that runs the job uses it; the static methods are the tasks' and are stateless.
 */
final class JobCommit {
  /** The directory of the jobs' temporary data in the output, as Hadoop's committers name it. */
  static final String TEMPORARY = "_temporary";

  /** The file in the job directory from its creation to its removal: the job is running. */
  static final String RUNNING = "_RUNNING";

  private final FileSystem fs;
  private final Path output;
  private final Path jobDirectory;
  private final boolean createdOutput;
  private final List<Path> published = new ArrayList<>();

  private JobCommit(FileSystem fs, Path output, Path jobDirectory, boolean createdOutput) {
    this.fs = fs;
    this.output = output;
    this.jobDirectory = jobDirectory;
    this.createdOutput = createdOutput;
  }

  /**
   * Checks that {@code output} is absent or an empty directory and creates the job directory.
   *
   * @throws FileAlreadyExistsException when the output is a file, holds a store, or holds anything
   */
  static JobCommit start(Path output, Configuration conf) throws IOException {
    FileSystem fs = HadoopFiles.fileSystem(output, conf);
    Path root = fs.makeQualified(output);
    boolean exists = fs.exists(root);
    if (exists) {
      checkEmpty(fs, root);
    }
    String job = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss"))
        + "-" + UUID.randomUUID().toString().substring(0, 8);
    Path jobDirectory = new Path(new Path(root, TEMPORARY), job);
    if (!fs.mkdirs(jobDirectory)) {
      throw new IOException("could not create the job directory " + jobDirectory);
    }
    JobCommit commit = new JobCommit(fs, root, jobDirectory, !exists);
    try {
      HadoopFiles.createInExistingDirectory(fs, new Path(jobDirectory, RUNNING)).close();
    } catch (IOException | RuntimeException e) {
      commit.abort(e);
      throw e;
    }
    return commit;
  }

  /** Whether the job of {@code jobDirectory} runs: the directory is the one its driver made, not one a task made again. */
  static boolean running(FileSystem fs, Path jobDirectory) throws IOException {
    return fs.exists(new Path(jobDirectory, RUNNING));
  }

  /**
   * Removes {@code jobDirectory}, its {@value #RUNNING} first (the tasks' sign that the job is
   * over), then {@code _temporary} if that left it empty (another job's directory stays), then, if
   * {@code removeEmptyOutput}, the output if that left it empty.
   */
  static void removeJobDirectory(FileSystem fs, Path jobDirectory, boolean removeEmptyOutput) throws IOException {
    fs.delete(new Path(jobDirectory, RUNNING), false);
    fs.delete(jobDirectory, true);
    Path temporary = jobDirectory.getParent();
    if (deleteIfEmpty(fs, temporary) && removeEmptyOutput) {
      deleteIfEmpty(fs, temporary.getParent());
    }
  }

  /**
   * For a task after its last write to the output: if the job is over, removes its directory as
   * {@link #removeJobDirectory} does, since a removal that began before that write may have missed
   * it; whether the job is over.
   */
  static boolean removeIfOver(FileSystem fs, Path jobDirectory, boolean removeEmptyOutput) throws IOException {
    if (running(fs, jobDirectory)) {
      return false;
    }
    removeJobDirectory(fs, jobDirectory, removeEmptyOutput);
    return true;
  }

  /** Deletes the directory {@code directory} if it is empty; whether it is gone (a removal beside this one may remove it first). */
  private static boolean deleteIfEmpty(FileSystem fs, Path directory) throws IOException {
    try {
      return !fs.exists(directory) || fs.listStatus(directory).length == 0 && fs.delete(directory, false);
    } catch (FileNotFoundException e) {
      return true;
    }
  }

  private static void checkEmpty(FileSystem fs, Path root) throws IOException {
    if (!fs.getFileStatus(root).isDirectory()) {
      throw new FileAlreadyExistsException(root + " is a file: a sharded store's output is a new directory");
    }
    String instead = "a store is immutable and a re-run writes a new version: write it to a path of its own, such as "
        + new Path(root.getParent(), root.getName() + "-" + LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmm")))
        + ", or delete this one first";
    if (fs.exists(new Path(root, ShardManifest.FILE_NAME))) {
      throw new FileAlreadyExistsException(root + " already holds a varve store (its " + ShardManifest.FILE_NAME + " exists): " + instead);
    }
    FileStatus[] children = fs.listStatus(root);
    if (children.length > 0) {
      List<String> names = Arrays.stream(children).limit(3).map(child -> child.getPath().getName()).toList();
      boolean leftovers = Arrays.stream(children).map(child -> child.getPath().getName())
          .anyMatch(name -> name.equals(TEMPORARY) || name.startsWith("shard-"));
      throw new FileAlreadyExistsException(root + " is not empty (it holds " + String.join(", ", names)
          + (children.length > 3 ? ", ..." : "") + ")"
          + (leftovers
              ? ": what an unfinished job left (no " + ShardManifest.FILE_NAME + ", so no store), or one still writing there:"
                  + " delete it once no job writes there, or write to a path of its own"
              : ": " + instead));
    }
  }

  /** The output directory, qualified. */
  Path output() {
    return output;
  }

  /** The directory the tasks' attempt directories go in: {@code <output>/_temporary/<job>}. */
  Path jobDirectory() {
    return jobDirectory;
  }

  /** Whether this job created the output directory (and removes it again if it fails). */
  boolean createdOutput() {
    return createdOutput;
  }

  /**
   * Publishes the accepted attempts, one per shard, and the manifest last; then removes {@code
   * _temporary}. A shard is published as {@code options}' {@link ShardFormat} names it: the attempt
   * directory renamed to {@code shard-XXXXX}, or the artifact in it renamed to {@code
   * shard-XXXXX.varve}.
   *
   * @throws IOException when an attempt is missing or its files' lengths differ from its report,
   *     or a rename fails; the caller then calls {@link #abort}
   */
  ShardManifest publish(List<ShardAttempt> accepted, VarveWriteOptions options) throws IOException {
    int shards = options.shards();
    if (accepted.size() != shards) {
      throw new IOException(accepted.size() + " shards built, " + shards + " expected");
    }
    ShardFormat format = options.shardFormat();
    List<ShardManifest.Shard> entries = new ArrayList<>(shards);
    for (int i = 0; i < shards; i++) {
      ShardAttempt attempt = accepted.get(i);
      if (attempt.shard() != i) {
        throw new IOException("partition " + i + " reported shard " + attempt.shard());
      }
      Path from = new Path(attempt.attemptPath());
      long bytes = HadoopFiles.directoryBytes(fs, from);
      if (bytes != attempt.copiedBytes()) {
        throw new IOException(from + " holds " + bytes + " bytes, its task copied " + attempt.copiedBytes());
      }
      entries.add(attempt.entry());
    }
    for (int i = 0; i < shards; i++) {
      Path attempt = new Path(accepted.get(i).attemptPath());
      String name = format.publishedName(i);
      rename(format == ShardFormat.ARTIFACT ? new Path(attempt, name) : attempt, new Path(output, name));
    }
    ShardManifest manifest = new ShardManifest(options.seed(), options.keyMode(), System.currentTimeMillis(), entries);
    Path staged = new Path(jobDirectory, ShardManifest.FILE_NAME);
    try (FSDataOutputStream out = HadoopFiles.createInExistingDirectory(fs, staged)) {
      out.write(manifest.toBytes());
      out.hsync();
    }
    rename(staged, new Path(output, ShardManifest.FILE_NAME));
    published.clear();
    try {
      removeJobDirectory(fs, jobDirectory, false);
    } catch (IOException | RuntimeException e) {
      // After the manifest the store is complete: a leftover _temporary is litter, not a failure.
    }
    return manifest;
  }

  /** Renames {@code from} to the absent {@code to} (a rename onto a directory would move {@code from} into it). */
  private void rename(Path from, Path to) throws IOException {
    if (fs.exists(to)) {
      throw new FileAlreadyExistsException(to + " appeared during the job: another job writes the same output");
    }
    if (!fs.rename(from, to)) {
      throw new IOException("could not rename " + from + " to " + to);
    }
    published.add(to);
  }

  /**
   * Undoes the job after {@code failure}: removes what it published (never its manifest: a failure
   * comes before the manifest's rename, or is none), {@code _temporary}, and the output directory
   * if this job created it and it is empty. Errors of the cleanup are suppressed into {@code
   * failure}.
   */
  void abort(Throwable failure) {
    for (Path path : published) {
      HadoopFiles.deleteQuietly(fs, path, failure);
    }
    published.clear();
    try {
      removeJobDirectory(fs, jobDirectory, createdOutput);
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }
}
