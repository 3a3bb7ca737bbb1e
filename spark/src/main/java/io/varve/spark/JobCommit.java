package io.varve.spark;

import io.varve.core.shard.ShardManifest;
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
 *       their attempt directories;
 *   <li>{@link #publish}, once the job succeeded: rename the attempt Spark accepted for each shard
 *       to {@code <output>/shard-XXXXX} (or its one file to {@code <output>/shard-XXXXX.varve}), write {@code _MANIFEST} into the job directory and rename
 *       it into the output last, then remove {@code _temporary};
 *   <li>{@link #abort}, on any failure before the manifest is in place: remove the shards renamed
 *       so far and {@code _temporary} (and the output directory if this job created it).
 * </ol>
 *
 * <p>Readers treat a root without {@code _MANIFEST} as unfinished, so a job killed between 2 and 3
 * leaves nothing a reader opens. Not thread-safe: the driver's thread that runs the job uses it.
 */
final class JobCommit {
  /** The directory of the jobs' temporary data in the output, as Hadoop's committers name it. */
  static final String TEMPORARY = "_temporary";

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
    return new JobCommit(fs, root, jobDirectory, !exists);
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
      throw new FileAlreadyExistsException(root + " is not empty (it holds " + String.join(", ", names)
          + (children.length > 3 ? ", ..." : "") + "): " + instead);
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
    try (FSDataOutputStream out = fs.create(staged, false)) {
      out.write(manifest.toBytes());
      out.hsync();
    }
    rename(staged, new Path(output, ShardManifest.FILE_NAME));
    published.clear();
    removeTemporary(null);
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
    removeTemporary(failure);
    if (createdOutput) {
      try {
        if (fs.exists(output) && fs.listStatus(output).length == 0) {
          fs.delete(output, false);
        }
      } catch (IOException | RuntimeException e) {
        failure.addSuppressed(e);
      }
    }
  }

  /** Removes the job directory, and {@code _temporary} once empty (another job's directory stays). */
  private void removeTemporary(Throwable failure) {
    Path temporary = jobDirectory.getParent();
    try {
      fs.delete(jobDirectory, true);
      if (fs.exists(temporary) && fs.listStatus(temporary).length == 0) {
        fs.delete(temporary, false);
      }
    } catch (IOException | RuntimeException e) {
      // After the manifest the store is complete: a leftover _temporary is litter, not a failure.
      if (failure != null) {
        failure.addSuppressed(e);
      }
    }
  }
}
