package io.varve.spark;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

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
    FileSystem fs = path.getFileSystem(conf);
    return fs instanceof LocalFileSystem local ? local.getRaw() : fs;
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
