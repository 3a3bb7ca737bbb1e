package io.varve.spark;

import java.io.IOException;
import java.util.EnumSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * The Hadoop file system calls the job and its tasks share. Stateless; thread-safe.
 */
final class HadoopFiles {
  private HadoopFiles() {}

  /**
   * The file system of {@code path}; for {@code file:} the raw one, without the {@code .crc} files
   * of Hadoop's checksummed local file system: every store file has its own CRC32C footer.
   */
  static FileSystem fileSystem(Path path, Configuration conf) throws IOException {
    FileSystem fs;
    try {
      fs = path.getFileSystem(conf);
    } catch (UnsupportedOperationException e) {
      throw new UnsupportedOperationException("the Hadoop client (3.4.1) cannot start on Java " + Runtime.version().feature()
          + ": it calls Subject.getSubject, which Java 24 and later no longer support (HADOOP-19212); run it on Java 17 or 21", e);
    }
    return fs instanceof LocalFileSystem local ? local.getRaw() : fs;
  }

  /**
   * Creates the new file {@code file} in its directory, which must exist: through {@link
   * FileSystem#createNonRecursive}, since {@code create} makes missing parents and would let a task
   * still copying once the driver removed its job directory (the job committed or aborted) bring
   * that directory back into the output. The overload with {@link CreateFlag}s, because Hadoop
   * 3.4.1's {@code RawLocalFileSystem} (the {@code file:} scheme) makes missing parents in the one
   * with an overwrite flag. On HDFS and the local file system a missing directory fails the call;
   * S3A makes no such check (its directories are only key prefixes), and there the tasks' checks of
   * their attempt directory remain the guard.
   *
   * @throws IOException when the directory is gone (a {@link java.io.FileNotFoundException} on HDFS
   *     and the local file system without native code)
   * @throws org.apache.hadoop.fs.FileAlreadyExistsException when the file exists
   */
  static FSDataOutputStream createInExistingDirectory(FileSystem fs, Path file) throws IOException {
    Configuration conf = fs.getConf();
    int bufferSize = conf.getInt(CommonConfigurationKeysPublic.IO_FILE_BUFFER_SIZE_KEY,
        CommonConfigurationKeysPublic.IO_FILE_BUFFER_SIZE_DEFAULT);
    FsPermission permission = FsPermission.getFileDefault().applyUMask(FsPermission.getUMask(conf));
    return fs.createNonRecursive(file, permission, EnumSet.of(CreateFlag.CREATE), bufferSize, fs.getDefaultReplication(file),
        fs.getDefaultBlockSize(file), null);
  }

  /** The total length of the files directly in {@code directory}. */
  static long directoryBytes(FileSystem fs, Path directory) throws IOException {
    long bytes = 0;
    for (FileStatus file : fs.listStatus(directory)) {
      if (!file.isFile()) {
        throw new IOException(directory + " holds " + file.getPath().getName() + ", which is not a file: a store directory is flat");
      }
      bytes += file.getLen();
    }
    return bytes;
  }

  /** Deletes {@code path} recursively, keeping {@code failure}'s story: a cleanup's own error is suppressed into it. */
  static void deleteQuietly(FileSystem fs, Path path, Throwable failure) {
    try {
      fs.delete(path, true);
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }
}
