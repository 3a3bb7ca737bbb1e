package io.varve.core.store;

import io.varve.core.testing.HostileFolder;
import io.varve.core.testing.SealedFiles;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Writes the hostile pages files of {@code src/test/resources/hostile/pages} (run {@code main} with
 * that folder to regenerate them): whole {@code pages} files with valid envelopes and checksums,
 * each lying in one field of the table ({@link PageTable}) of a store of {@link #RECORDS} records in
 * {@link #DATA_BYTES} bytes of 4096-byte pages with record checksums.
 */
final class HostilePagesFiles {
  private HostilePagesFiles() {}

  static final long RECORDS = 100;
  static final long DATA_BYTES = 2L * 4096 + 2000;
  static final int PAGE_BYTES = 4096;
  static final int CHECK_BYTES = 4;

  public static void main(String[] args) throws IOException {
    Path folder = Path.of(args.length > 0 ? args[0] : "core/src/test/resources/hostile/pages");
    HostileFolder.write(folder, variants());
  }

  /**
   * A valid table: frame 0 of 40 records, the last running into frame 1, whose head starts after
   * its tail; frame 2 of 30 records ending the data.
   */
  static final class Fields implements HostileFolder.Fields {
    int pageBytes = PAGE_BYTES;
    Integer frameCount; // null: rows.length
    int[][] rows = {{100, 40, 0, 4096}, {200, 30, 500, 3000}, {300, 30, 0, 2000}};
    byte[] trailing = new byte[0];

    @Override
    public byte[] file() throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeInt(pageBytes);
      out.writeInt(frameCount != null ? frameCount : rows.length);
      for (int[] row : rows) {
        out.writeInt(row[0]);
        out.writeShort(row[1]);
        out.writeShort(row[2]);
        out.writeShort(row[3]);
      }
      out.write(trailing);
      out.flush();
      return SealedFiles.file(StoreFile.PAGES.envelope(), 1, bytes.toByteArray());
    }
  }

  /** Reads a pages file as a store of the valid table's shape does. */
  static PageTable read(Path file) throws IOException {
    return StoreFileReader.read(
        file, StoreFile.PAGES, (in, length) -> PageTable.readFrom(in, length, RECORDS, DATA_BYTES, PAGE_BYTES, CHECK_BYTES));
  }

  static byte[] valid() throws IOException {
    return new Fields().file();
  }

  private static void lie(Map<String, byte[]> files, String name, Consumer<Fields> edit) throws IOException {
    HostileFolder.lie(files, name, Fields::new, edit);
  }

  private static void row(Fields f, int frame, int... row) {
    f.rows = f.rows.clone();
    f.rows[frame] = row;
  }

  static Map<String, byte[]> variants() throws IOException {
    byte[] valid = valid();
    Map<String, byte[]> files = new LinkedHashMap<>();
    files.put("empty", new byte[0]);
    files.put("truncated", SealedFiles.sealed(StoreFile.PAGES.envelope(), Arrays.copyOf(valid, valid.length - StoreFile.FOOTER_LENGTH - 3)));
    lie(files, "trailing-bytes", f -> f.trailing = new byte[] {0, 0});
    lie(files, "page-size-other-than-the-meta", f -> f.pageBytes = 512);
    lie(files, "frame-count-too-small", f -> f.frameCount = 2);
    lie(files, "frame-count-negative", f -> f.frameCount = -1);
    lie(files, "counts-short-of-the-records", f -> row(f, 2, 300, 29, 0, 2000));
    lie(files, "counts-over-the-records", f -> row(f, 2, 300, 31, 0, 2000));
    lie(files, "count-over-a-page", f -> row(f, 2, 300, 1000, 0, 2000));
    lie(files, "first-frame-head-after-its-start", f -> row(f, 0, 100, 40, 8, 4096));
    lie(files, "head-past-the-page", f -> row(f, 1, 200, 30, 4090, 4096));
    lie(files, "head-over-its-records", f -> row(f, 1, 200, 30, 500, 600));
    lie(files, "records-end-past-the-page", f -> row(f, 1, 200, 30, 500, 4097));
    lie(files, "records-end-past-the-data", f -> row(f, 2, 300, 30, 0, 2001));
    lie(files, "firsts-out-of-order", f -> row(f, 2, 150, 30, 0, 2000));
    lie(files, "empty-frame-with-a-head", f -> {
      f.rows = new int[][] {{100, 40, 0, 4096}, {100, 0, 500, 0}, {300, 60, 0, 2000}};
    });
    lie(files, "empty-frame-with-a-first-of-its-own", f -> {
      f.rows = new int[][] {{100, 40, 0, 4096}, {150, 0, 0, 0}, {300, 60, 0, 2000}};
    });
    lie(files, "first-frame-empty", f -> {
      f.rows = new int[][] {{0, 0, 0, 0}, {200, 70, 500, 3000}, {300, 30, 0, 2000}};
    });
    return files;
  }
}
