package io.varve.core.store;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Writes a {@link HashesFile hashes file}: {@link #add} once per record, in record order, then
 * {@link #finish()}; {@link #close()} without finishing abandons the file. Not thread-safe.
 */
public final class HashesWriter implements Closeable {
  private final StoreFileWriter file;
  private final DataOutputStream out;

  private HashesWriter(StoreFileWriter file) {
    this.file = file;
    this.out = new DataOutputStream(new BufferedOutputStream(file, 1 << 16));
  }

  /**
   * Creates {@code path} (which must not exist) and writes its header.
   *
   * @throws java.nio.file.FileAlreadyExistsException if the file exists
   */
  public static HashesWriter create(Path path) throws IOException {
    return new HashesWriter(StoreFileWriter.create(path, StoreFile.HASHES));
  }

  /** Appends the key hash {@code hi:lo} of the next record. */
  public void add(long hi, long lo) throws IOException {
    out.writeLong(hi);
    out.writeLong(lo);
  }

  /**
   * Hands what was added to the file, so that {@link HashesReader#openUnfinished} reads it back
   * before the file is finished.
   */
  public void flush() throws IOException {
    out.flush();
  }

  /** Writes the footer and forces the file to disk; returns its size and checksum for the meta file. */
  public StoreFileWriter.FileSummary finish() throws IOException {
    out.flush();
    return file.finish();
  }

  /** Closes the file; without {@link #finish()} it is left unusable. */
  @Override
  public void close() throws IOException {
    file.close();
  }
}
