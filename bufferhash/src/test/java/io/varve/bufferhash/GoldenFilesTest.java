package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * BufferHash directories written by released format versions stay readable. {@code v1-closed}: a
 * table closed cleanly (log, state, buffers file); {@code v1-crashed}: the files of a table with a
 * write-ahead log, copied after a sync while it was still open, as a crash leaves them; {@code v2-*}
 * the same of state version 2 (sequence numbers skip ahead at each open); {@code v3-*} the same of
 * state version 3 (table id {@link #GOLDEN_TABLE_ID}, version-2 incarnations, buffers file and
 * write-ahead segments, their checks salted with it). Regenerate with {@link #main} (only for a new
 * format version, into a new folder).
 */
class GoldenFilesTest {
  @TempDir Path temp;

  /** The table id of the {@code v3-*} goldens (a new table's is random; fixed here so that they can be made again byte for byte). */
  static final long GOLDEN_TABLE_ID = 0x601DE17AB1E1D5EDL;

  static Map<String, byte[]> expected() {
    Map<String, byte[]> expected = new HashMap<>();
    for (int i = 0; i < 600; i++) {
      if (i % 10 != 3) {
        expected.put("golden-key-" + i, ("value-" + i + "-").repeat(i % 5).getBytes(StandardCharsets.UTF_8));
      }
    }
    return expected;
  }

  private static BufferHashBuilder builder(Path dir, Durability durability) {
    return BufferHash.builder(dir).logBytes(64 * 1024).memoryBytes(64 * 1024).entryBytes(24).bufferBytes(4096).superTables(2).durability(durability)
        .seed(0x5EEDB0FFL).tableId(GOLDEN_TABLE_ID);
  }

  /** The first half of {@link #write}'s puts: the generator closes and reopens between the halves, so that sequence numbers skip. */
  private static void writeFirstHalf(BufferHash table) {
    for (int i = 0; i < 300; i++) {
      table.put(("golden-key-" + i).getBytes(StandardCharsets.UTF_8), ("value-" + i + "-").repeat(i % 5).getBytes(StandardCharsets.UTF_8));
    }
  }

  private static void write(BufferHash table) {
    write(table, 0);
  }

  /** {@link #write}, syncing after every {@code syncEvery} puts (0: never). */
  private static void write(BufferHash table, int syncEvery) {
    for (int i = 0; i < 600; i++) {
      table.put(("golden-key-" + i).getBytes(StandardCharsets.UTF_8), ("value-" + i + "-").repeat(i % 5).getBytes(StandardCharsets.UTF_8));
      if (syncEvery > 0 && i % syncEvery == syncEvery - 1) {
        table.sync();
      }
    }
    for (int i = 3; i < 600; i += 10) {
      table.delete(("golden-key-" + i).getBytes(StandardCharsets.UTF_8));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"v1-closed", "v1-crashed", "v2-closed", "v2-crashed", "v3-closed", "v3-crashed", "v4-closed", "v4-crashed", "v5-closed", "v5-crashed"})
  void readsTheGoldenDirectory(String name) throws Exception {
    Path dir = temp.resolve(name);
    Files.createDirectories(dir);
    Path golden = Path.of(GoldenFilesTest.class.getResource("/golden/" + name).toURI());
    try (Stream<Path> files = Files.list(golden)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Files.copy(file, dir.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Map<String, byte[]> expected = expected();
    Durability durability = name.endsWith("crashed") ? Durability.SYNC_ON_CALL : Durability.BUFFERS_IN_RAM;
    try (BufferHash table = builder(dir, durability).open()) {
      assertEquals(2, table.tuning().superTables());
      for (int i = 0; i < 600; i++) {
        String key = "golden-key-" + i;
        assertArrayEquals(expected.get(key), table.get(key.getBytes(StandardCharsets.UTF_8)), key);
      }
      Map<String, byte[]> seen = new HashMap<>();
      table.forEach((key, value) -> seen.put(new String(key, StandardCharsets.UTF_8), value));
      assertEquals(expected.keySet(), seen.keySet());
      assertTrue(table.logPages()[0] > 1, "the golden log holds incarnations");
    }
  }

  /** The golden state files are of the version their folder names (the first state slot's version byte). */
  @ParameterizedTest
  @ValueSource(strings = {"v1-closed", "v1-crashed", "v2-closed", "v2-crashed", "v3-closed", "v3-crashed", "v4-closed", "v4-crashed", "v5-closed", "v5-crashed"})
  void goldenStatesAreOfTheirVersion(String name) throws Exception {
    byte[] state = Files.readAllBytes(Path.of(GoldenFilesTest.class.getResource("/golden/" + name + "/state").toURI()));
    int version = Integer.parseInt(name.substring(1, name.indexOf('-')));
    assertEquals(version, state[4], name);
  }

  /**
   * The structures of each golden directory are of the version its state calls for: version 1,
   * unsalted, under states 1 and 2; version 2, salted with {@link #GOLDEN_TABLE_ID}, under states 3 to 5
   * (and each passes its salted check, none the unsalted one).
   */
  @ParameterizedTest
  @ValueSource(strings = {"v1-closed", "v1-crashed", "v2-closed", "v2-crashed", "v3-closed", "v3-crashed", "v4-closed", "v4-crashed", "v5-closed", "v5-crashed"})
  void goldenStructuresAreOfTheVersionTheirStateCallsFor(String name) throws Exception {
    Path golden = Path.of(GoldenFilesTest.class.getResource("/golden/" + name).toURI());
    boolean salted = name.startsWith("v3") || name.startsWith("v4") || name.startsWith("v5");
    long id = TableIds.of(golden);
    assertEquals(salted ? GOLDEN_TABLE_ID : 0, id, name);
    int version = salted ? LogFormat.SALTED_VERSION : LogFormat.VERSION;
    byte[] log = Files.readAllBytes(golden.resolve("log"));
    assertEquals(version, log[4], name + ": the first incarnation");
    assertTrue(LogFormat.isSealed(id, log, 0, 28), name + ": the first incarnation's header check");
    assertEquals(!salted, LogFormat.isSealed(0, log, 0, 28), name + ": the unsalted check");
    int files = 0;
    try (Stream<Path> list = Files.list(golden)) {
      for (Path file : (Iterable<Path>) list::iterator) {
        String fileName = file.getFileName().toString();
        if (fileName.equals("buffers") || fileName.startsWith("wal-")) {
          byte[] bytes = Files.readAllBytes(file);
          int end = fileName.equals("buffers") ? bytes.length - 4 : 24;
          assertEquals(version, bytes[4], name + "/" + fileName);
          assertTrue(LogFormat.isSealed(id, bytes, 0, end), name + "/" + fileName);
          files++;
        }
      }
    }
    assertTrue(files > 0, name + ": a buffers file or write-ahead segments");
  }

  /** The write-ahead segments' size in the crashed golden (since v5; before, the default, one segment). */
  private static final long WAL_SEGMENT_BYTES = 2048;

  /** Writes the golden directories of today's version into {@code args[0]} ({@code v<state version>-closed}, {@code -crashed}). */
  public static void main(String[] args) throws IOException {
    Path root = Path.of(args[0]);
    String prefix = "v" + LogFormat.STATE_VERSION;
    try (BufferHash table = builder(root.resolve(prefix + "-closed"), Durability.BUFFERS_IN_RAM).open()) {
      writeFirstHalf(table);
    }
    try (BufferHash table = builder(root.resolve(prefix + "-closed"), Durability.BUFFERS_IN_RAM).open()) {
      write(table);
    }
    Path crashed = root.resolve(prefix + "-crashed");
    Path live = root.resolve(prefix + "-crashed-live");
    // Small segments, synced often (since v5): the crashed table holds several, some retired
    // before it, so that its sync mark's first segment is neither the first nor the newest.
    try (BufferHash table = builder(live, Durability.SYNC_ON_CALL).walSegmentBytes(WAL_SEGMENT_BYTES).open()) {
      writeFirstHalf(table);
    }
    try (BufferHash table = builder(live, Durability.SYNC_ON_CALL).walSegmentBytes(WAL_SEGMENT_BYTES).open()) {
      write(table, 40);
      table.sync();
      Files.createDirectories(crashed);
      try (Stream<Path> files = Files.list(live)) {
        for (Path file : (Iterable<Path>) files::iterator) {
          if (!file.getFileName().toString().equals("lock")) {
            Files.copy(file, crashed.resolve(file.getFileName()));
          }
        }
      }
    }
    Files.deleteIfExists(root.resolve(prefix + "-closed").resolve("lock"));
    io.varve.core.files.FileTrees.deleteTree(live);
  }
}
