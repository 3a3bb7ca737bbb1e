package io.varve.spark;

import io.varve.builder.ShardedStoreBuilder;
import io.varve.core.shard.ShardManifest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.AbstractMap;
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
import org.apache.spark.SparkFiles;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.util.SerializableConfiguration;
import scala.Tuple2;

/**
 * One task: builds the shard of its partition in the executor's local directory (bounded memory,
 * spilling there), as a store directory or packed as one artifact ({@link ShardFormat}), copies
 * its files to an attempt directory of the output through the Hadoop {@link FileSystem} API,
 * checks the copy's lengths, and reports a {@link ShardAttempt}. A failed attempt removes its
 * attempt directory when it can; whatever it leaves is under the job's {@code _temporary}
 * directory, which the job removes. Serializable for Spark; each task runs its own copy from one
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
      Records entries = new Records(partition, records);
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
      long copied = copy(files, attempt, context);
      return List.of(ShardAttempt.of(partition, attempt.toString(), copied, entry)).iterator();
    } finally {
      deleteLocal(local);
    }
  }

  /**
   * Copies the local {@code files} into the new directory {@code attempt}, checks the lengths, and
   * returns their sum.
   */
  private long copy(List<java.nio.file.Path> files, Path attempt, TaskContext context) throws IOException {
    FileSystem fs = HadoopFiles.fileSystem(attempt, configuration.value().value());
    Path job = attempt.getParent();
    // The driver removes the job directory once the job is over: a straggler must not bring it back.
    if (!JobCommit.running(fs, job)) {
      throw jobOver(job);
    }
    try {
      if (!fs.mkdirs(attempt)) {
        throw new IOException("could not create the attempt directory " + attempt);
      }
      // mkdirs makes missing parents: if the job ended since the check, this task made its directory again.
      if (!JobCommit.running(fs, job)) {
        JobCommit.removeJobDirectory(fs, job, jobCreatedOutput);
        throw jobOver(job);
      }
      Map<String, Long> lengths = new HashMap<>();
      long total = 0;
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
        try (InputStream in = Files.newInputStream(file); FSDataOutputStream out = createInAttempt(fs, attempt, fileName)) {
          long length = in.transferTo(out);
          lengths.put(fileName, length);
          total += length;
        }
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
      return total;
    } catch (IOException | RuntimeException | Error e) {
      HadoopFiles.deleteQuietly(fs, attempt, e);
      throw e;
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

  /** The partition's shuffled records as the builder's entries, each checked to belong here. */
  private static final class Records implements Iterator<Map.Entry<byte[], byte[]>> {
    private final int partition;
    private final Iterator<Tuple2<Integer, byte[]>> records;

    Records(int partition, Iterator<Tuple2<Integer, byte[]>> records) {
      this.partition = partition;
      this.records = records;
    }

    @Override
    public boolean hasNext() {
      return records.hasNext();
    }

    @Override
    public Map.Entry<byte[], byte[]> next() {
      Tuple2<Integer, byte[]> record = records.next();
      if (record._1() != partition) {
        throw new IllegalStateException("a record of shard " + record._1() + " in partition " + partition + ": not partitioned by ShardPartitioner");
      }
      ByteBuffer bytes = ByteBuffer.wrap(record._2());
      byte[] key = new byte[bytes.getInt()];
      bytes.get(key);
      byte[] value = new byte[bytes.remaining()];
      bytes.get(value);
      return new AbstractMap.SimpleImmutableEntry<>(key, value);
    }
  }
}
