package io.varve.spark;

import io.varve.builder.ShardedStoreBuilder;
import io.varve.builder.StoreBuilder;
import io.varve.core.shard.ShardManifest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.spark.SparkFiles;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.util.SerializableConfiguration;
import scala.Tuple2;

/**
 * One task: builds the shard of its partition in the executor's local directory (bounded memory,
 * spilling there), as a store directory or packed as one artifact ({@link ShardFormat}), copies
 * its files to an attempt directory of the output through the Hadoop {@link FileSystem} API (moves
 * them, on the local file system), checks their lengths there, and reports a {@link ShardAttempt}.
 * A failed attempt removes its attempt directory when it can; whatever it leaves is under the
 * job's {@code _temporary} directory, which the job removes. Serializable for Spark; each task runs its own copy from one
 * thread.
 */
final class ShardTask implements Function2<Integer, Iterator<Tuple2<Integer, byte[]>>, Iterator<ShardAttempt>> {
  private static final long serialVersionUID = 1L;

  private final String jobDirectory;
  private final boolean jobCreatedOutput;
  private final Broadcast<SerializableConfiguration> configuration;
  private final VarveWriteOptions options;

  /**
   * The task of the job whose directory is {@code jobDirectory} ({@link JobCommit#jobDirectory()});
   * {@code jobCreatedOutput} as {@link JobCommit#createdOutput()}.
   */
  ShardTask(String jobDirectory, boolean jobCreatedOutput, Broadcast<SerializableConfiguration> configuration,
      VarveWriteOptions options) {
    this.jobDirectory = jobDirectory;
    this.jobCreatedOutput = jobCreatedOutput;
    this.configuration = configuration;
    this.options = options;
  }

  @Override
  public Iterator<ShardAttempt> call(Integer partition, Iterator<Tuple2<Integer, byte[]>> records) throws IOException {
    TaskContext context = TaskContext.get();
    long attemptId = context == null ? 0 : context.taskAttemptId();
    String name = ShardManifest.shardName(partition);
    java.nio.file.Path localRoot = java.nio.file.Path.of(options.localDirectory().orElseGet(SparkFiles::getRootDirectory));
    Files.createDirectories(localRoot);
    java.nio.file.Path local = Files.createTempDirectory(localRoot, "varve-" + name + ".attempt-" + attemptId + "-");
    try {
      ShardedStoreBuilder.ShardRecords entries = builder -> putAll(partition, records, builder);
      ShardManifest.Shard entry;
      List<java.nio.file.Path> files;
      if (options.shardFormat() == ShardFormat.ARTIFACT) {
        java.nio.file.Path artifact = local.resolve(options.shardFormat().publishedName(partition));
        entry = ShardedStoreBuilder.buildShardArtifact(artifact, options.router(), partition, options.buildOptions(local),
            options.duplicates(), entries);
        files = List.of(artifact);
      } else {
        java.nio.file.Path store = local.resolve(name);
        entry = ShardedStoreBuilder.buildShard(store, options.router(), partition, options.buildOptions(local),
            options.duplicates(), entries);
        files = files(store);
      }
      Path attempt = new Path(jobDirectory, name + ".attempt-" + attemptId);
      long copied = transfer(files, attempt, context);
      return List.of(ShardAttempt.of(partition, attempt.toString(), copied, entry)).iterator();
    } finally {
      deleteLocal(local);
    }
  }

  /**
   * Copies the local {@code files} into the new directory {@code attempt}, checks the lengths, and
   * returns their sum. On the local file system it moves them instead: a rename when the executor's
   * directory is on the output's device, which spares writing every shard twice.
   */
  private long transfer(List<java.nio.file.Path> files, Path attempt, TaskContext context) throws IOException {
    FileSystem fs = HadoopFiles.fileSystem(attempt, configuration.value().value());
    Path job = attempt.getParent();
    // The driver removes the job directory once the job is over: a straggler must not bring it back.
    if (!JobCommit.running(fs, job)) {
      throw jobOver(job);
    }
    long total;
    try {
      if (!fs.mkdirs(attempt)) {
        throw new IOException("could not create the attempt directory " + attempt);
      }
      // mkdirs makes missing parents: if the job ended since the check, this task made its directory again.
      if (JobCommit.removeIfOver(fs, job, jobCreatedOutput)) {
        throw jobOver(job);
      }
      Map<String, Long> lengths = new HashMap<>();
      total = 0;
      for (java.nio.file.Path file : files) {
        if (context != null) {
          context.killTaskIfInterrupted();
        }
        String fileName = file.getFileName().toString();
        // Once the driver removed the job directory (the job committed or aborted), a task still
        // copying stops here, and the non-recursive create below fails if the removal comes between.
        if (!fs.exists(attempt)) {
          throw new IOException("the attempt directory " + attempt + " is gone: the job is over (committed or aborted)");
        }
        long length = Files.size(file);
        if (fs instanceof RawLocalFileSystem local && "file".equals(local.getUri().getScheme())) {
          // No REPLACE_EXISTING, and a missing attempt directory fails the move: never recreated.
          Files.move(file, local.pathToFile(new Path(attempt, fileName)).toPath());
        } else {
          try (InputStream in = Files.newInputStream(file); FSDataOutputStream out = createInAttempt(fs, attempt, fileName)) {
            length = in.transferTo(out);
          }
        }
        lengths.put(fileName, length);
        total += length;
      }
      for (FileStatus copied : fs.listStatus(attempt)) {
        Long length = lengths.remove(copied.getPath().getName());
        if (length == null || length != copied.getLen()) {
          throw new IOException(copied.getPath() + ": " + copied.getLen() + " bytes after the copy, the shard's file has " + length);
        }
      }
      if (!lengths.isEmpty()) {
        throw new IOException(attempt + " lacks " + lengths.keySet() + " after the copy");
      }
    } catch (IOException | RuntimeException | Error e) {
      HadoopFiles.deleteQuietly(fs, attempt, e);
      removeQuietlyIfOver(fs, job, e);
      throw e;
    }
    // The driver's removal of the job directory may have listed it before this task wrote there.
    if (JobCommit.removeIfOver(fs, job, jobCreatedOutput)) {
      throw jobOver(job);
    }
    return total;
  }

  /** {@link JobCommit#removeIfOver} after a failure, its own error suppressed into {@code failure}. */
  private void removeQuietlyIfOver(FileSystem fs, Path job, Throwable failure) {
    try {
      JobCommit.removeIfOver(fs, job, jobCreatedOutput);
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  private static IOException jobOver(Path job) {
    return new IOException("the job directory " + job + " is gone: the job is over (committed or aborted)");
  }

  /** Creates {@code fileName} in {@code attempt}, never recreating the directory if it is gone. */
  private static FSDataOutputStream createInAttempt(FileSystem fs, Path attempt, String fileName) throws IOException {
    try {
      return HadoopFiles.createInExistingDirectory(fs, new Path(attempt, fileName));
    } catch (IOException e) {
      if (fs.exists(attempt)) {
        throw e;
      }
      throw new IOException("could not create " + fileName + " in the attempt directory " + attempt
          + ", which is gone: the job is over (committed or aborted)", e);
    }
  }

  /** The files of the flat store directory {@code store}, by name. */
  private static List<java.nio.file.Path> files(java.nio.file.Path store) throws IOException {
    List<java.nio.file.Path> files = new ArrayList<>();
    try (Stream<java.nio.file.Path> list = Files.list(store)) {
      for (java.nio.file.Path file : (Iterable<java.nio.file.Path>) list.sorted()::iterator) {
        if (!Files.isRegularFile(file)) {
          throw new IOException(file + " is not a file: a store directory is flat");
        }
        files.add(file);
      }
    }
    return files;
  }

  private static void deleteLocal(java.nio.file.Path local) throws IOException {
    try (Stream<java.nio.file.Path> walk = Files.walk(local)) {
      for (java.nio.file.Path path : (Iterable<java.nio.file.Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(path);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /** Puts the partition's shuffled records ({@link ShuffleRecord}s) into its shard's builder. */
  private static void putAll(int partition, Iterator<Tuple2<Integer, byte[]>> records, StoreBuilder builder) throws IOException {
    while (records.hasNext()) {
      Tuple2<Integer, byte[]> shuffled = records.next();
      if (shuffled._1() != partition) {
        throw new IllegalStateException("a record of shard " + shuffled._1() + " in partition " + partition + ": not partitioned by ShardPartitioner");
      }
      byte[] record = shuffled._2();
      int keyOffset = ShuffleRecord.keyOffset(record);
      int keyLength = ShuffleRecord.keyLength(record, keyOffset);
      int valueOffset = keyOffset + keyLength;
      builder.put(record, keyOffset, keyLength, record, valueOffset, record.length - valueOffset);
    }
  }
}
