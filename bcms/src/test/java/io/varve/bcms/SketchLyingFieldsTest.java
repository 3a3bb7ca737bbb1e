package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.bcms.SketchFileCorruptionTest.Format;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Sketch files whose checksums hold but whose fields lie, in both format versions: each must fail to
 * open with a {@link CorruptStoreException} saying which field is wrong and naming the file (moved
 * out of {@link SketchFileCorruptionTest}, which keeps the damaged and foreign files).
 */
class SketchLyingFieldsTest {
  @TempDir Path dir;

  private int files;

  private Path validFile(Format format) {
    return SketchFileCorruptionTest.validFile(format, dir.resolve("sketch-" + (files++) + ".cms"));
  }

  private Path newPath() {
    return dir.resolve("lying-" + (files++) + ".cms");
  }

  @ParameterizedTest
  @EnumSource(Format.class)
  void headersWithAValidChecksumButInvalidFieldsAreCorrupt(Format format) throws IOException {
    assertLyingFieldsAreCorrupt(format, Files.readAllBytes(validFile(format)), SketchFile.VERSION);
  }

  /** The same lies in the one header of a version-1 file, which this code still reads. */
  @ParameterizedTest
  @EnumSource(Format.class)
  void version1HeadersWithAValidChecksumButInvalidFieldsAreCorrupt(Format format) throws IOException {
    assertLyingFieldsAreCorrupt(format, SketchFiles.version1Of(Files.readAllBytes(validFile(format))), SketchFile.VERSION_1);
  }

  /**
   * Each case changes one field and reseals what it changed (the fields, or in version 2 the newest
   * commit record, in slot 1 of a file created and closed once): opening fails on that field.
   */
  private void assertLyingFieldsAreCorrupt(Format format, byte[] bytes, int version) throws IOException {
    boolean v1 = version == SketchFile.VERSION_1;
    ByteBuffer original = SketchFiles.fields(bytes);
    long width = original.getLong(24);
    int columnsPerPage = original.getInt(36);
    long pageCount = original.getLong(40);
    int bodyLengthAt = v1 ? 72 : 60;
    int record = (int) SketchFile.slotOffset(1); // the newest record: state at +24, weight at +16, checksum at +28
    int stateAt = v1 ? 60 : record + 24;
    int weightAt = v1 ? 64 : record + 16;
    int bodyCrcAt = v1 ? 80 : record + 28;
    List<Object[]> cases = new ArrayList<>();
    // {description, mutation, expected message part}
    cases.add(new Object[] {"version 3", (Consumer<ByteBuffer>) b -> b.putInt(8, 3), "format version 3"});
    cases.add(new Object[] {"version 0", (Consumer<ByteBuffer>) b -> b.putInt(8, 0), "format version 0"});
    cases.add(new Object[] {"the other version", (Consumer<ByteBuffer>) b -> b.putInt(8, v1 ? 2 : 1), ""});
    cases.add(new Object[] {"layout 3", (Consumer<ByteBuffer>) b -> b.putInt(12, 3), "unknown layout"});
    cases.add(new Object[] {"layout 0", (Consumer<ByteBuffer>) b -> b.putInt(12, 0), "unknown layout"});
    cases.add(new Object[] {"counter bytes 2", (Consumer<ByteBuffer>) b -> b.putInt(16, 2), "invalid parameters"});
    cases.add(new Object[] {"counter bytes 16", (Consumer<ByteBuffer>) b -> b.putInt(16, 16), "invalid parameters"});
    cases.add(new Object[] {"depth 0", (Consumer<ByteBuffer>) b -> b.putInt(20, 0), "invalid parameters"});
    cases.add(new Object[] {"depth 65", (Consumer<ByteBuffer>) b -> b.putInt(20, 65), "invalid parameters"});
    cases.add(new Object[] {"depth -1", (Consumer<ByteBuffer>) b -> b.putInt(20, -1), "invalid parameters"});
    cases.add(new Object[] {"width 0", (Consumer<ByteBuffer>) b -> b.putLong(24, 0), "invalid parameters"});
    cases.add(new Object[] {"width -5", (Consumer<ByteBuffer>) b -> b.putLong(24, -5), "invalid parameters"});
    cases.add(new Object[] {"huge width", (Consumer<ByteBuffer>) b -> b.putLong(24, Long.MAX_VALUE / 3), ""});
    cases.add(new Object[] {"width doubled", (Consumer<ByteBuffer>) b -> b.putLong(24, 2 * width), ""});
    cases.add(new Object[] {"flags 2", (Consumer<ByteBuffer>) b -> b.putInt(56, 2), "unknown flags"});
    cases.add(new Object[] {"flags -1", (Consumer<ByteBuffer>) b -> b.putInt(56, -1), "unknown flags"});
    cases.add(new Object[] {"state 2", (Consumer<ByteBuffer>) b -> b.putInt(stateAt, 2), "unknown state"});
    cases.add(new Object[] {"state 1", (Consumer<ByteBuffer>) b -> b.putInt(stateAt, 1), "not closed cleanly"});
    cases.add(new Object[] {"total weight -1", (Consumer<ByteBuffer>) b -> b.putLong(weightAt, -1), "negative total weight"});
    cases.add(new Object[] {"body length + 1", (Consumer<ByteBuffer>) b -> b.putLong(bodyLengthAt, b.getLong(bodyLengthAt) + 1),
        "body length"});
    cases.add(new Object[] {"body length 0", (Consumer<ByteBuffer>) b -> b.putLong(bodyLengthAt, 0), "body length"});
    cases.add(new Object[] {"body crc + 1", (Consumer<ByteBuffer>) b -> b.putInt(bodyCrcAt, b.getInt(bodyCrcAt) + 1),
        "body checksum mismatch"});
    if (!v1) {
      cases.add(new Object[] {"generation 0", (Consumer<ByteBuffer>) b -> b.putLong(record + 8, 0), "generation 0"});
      cases.add(new Object[] {"generation -1", (Consumer<ByteBuffer>) b -> b.putLong(record + 8, -1), "generation -1"});
      cases.add(new Object[] {"the older record's generation", (Consumer<ByteBuffer>) b -> b.putLong(record + 8, 1),
          "both commit records have generation 1"});
    }
    if (format.buffered()) {
      cases.add(new Object[] {"page size 256", (Consumer<ByteBuffer>) b -> b.putInt(32, 256), "invalid parameters"});
      cases.add(new Object[] {"page size 1000", (Consumer<ByteBuffer>) b -> b.putInt(32, 1000), "invalid parameters"});
      cases.add(new Object[] {"page size 0", (Consumer<ByteBuffer>) b -> b.putInt(32, 0), "invalid parameters"});
      cases.add(new Object[] {"page size doubled", (Consumer<ByteBuffer>) b -> b.putInt(32, 2 * b.getInt(32)), ""});
      cases.add(new Object[] {"columns per page + 1", (Consumer<ByteBuffer>) b -> b.putInt(36, columnsPerPage + 1),
          "page layout"});
      cases.add(new Object[] {"columns per page 0", (Consumer<ByteBuffer>) b -> b.putInt(36, 0), "page layout"});
      cases.add(new Object[] {"page count + 1", (Consumer<ByteBuffer>) b -> b.putLong(40, pageCount + 1),
          "page layout"});
      cases.add(new Object[] {"page count -1", (Consumer<ByteBuffer>) b -> b.putLong(40, -1), "page layout"});
      cases.add(new Object[] {"one column per page", (Consumer<ByteBuffer>) b -> b.putInt(20, 64).putInt(16, 8)
          .putInt(32, 512), "page layout"});
      cases.add(new Object[] {"row layout", (Consumer<ByteBuffer>) b -> b.putInt(12, 1), "row-layout"});
    } else {
      cases.add(new Object[] {"page size in a row layout", (Consumer<ByteBuffer>) b -> b.putInt(32, 4096),
          "row-layout"});
      cases.add(new Object[] {"columns per page in a row layout", (Consumer<ByteBuffer>) b -> b.putInt(36, 1),
          "page layout"});
      cases.add(new Object[] {"page count in a row layout", (Consumer<ByteBuffer>) b -> b.putLong(40, 1),
          "page layout"});
      cases.add(new Object[] {"page layout", (Consumer<ByteBuffer>) b -> b.putInt(12, 2), ""});
    }
    Path damaged = newPath();
    for (Object[] c : cases) {
      byte[] copy = bytes.clone();
      @SuppressWarnings("unchecked")
      Consumer<ByteBuffer> mutation = (Consumer<ByteBuffer>) c[1];
      mutation.accept(SketchFiles.fields(copy));
      SketchFiles.resealFields(copy, version);
      if (!v1) {
        SketchFiles.resealRecord(copy, 1);
      }
      Files.write(damaged, copy);
      String expected = (String) c[2];
      if (expected.equals("body checksum mismatch")) {
        // the header is consistent: only a verifying open reads the body
        CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> format.open(damaged, true).close());
        assertTrue(e.getMessage().contains(expected), c[0] + ": " + e.getMessage());
        format.open(damaged, false).close();
        continue;
      }
      List<String> messages = new ArrayList<>();
      for (boolean verify : new boolean[] {true, false}) {
        CorruptStoreException e = assertThrows(CorruptStoreException.class,
            () -> format.open(damaged, verify).close(), (String) c[0]);
        messages.add(e.getMessage());
      }
      for (String m : messages) {
        assertTrue(m.contains(expected) && m.contains(damaged.toString()), c[0] + ": " + m);
      }
    }
  }

}
