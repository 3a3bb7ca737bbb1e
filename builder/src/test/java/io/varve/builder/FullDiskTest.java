package io.varve.builder;

import static io.varve.builder.SpillDirectories.findPartitions;
import static io.varve.builder.SpillDirectories.list;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.DelegatingChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk names the directory that is full, and whether it is the temporary directory (the
 * sort's spills) or the store's: the JVM's own message, "No space left on device", names no file.
 * Until 2026-11-28 that bare message was all a failed build, merge or re-index said. Spills meet
 * a real ENOSPC here without root: a partition file is a link to {@code /dev/full}. The store's
 * side is covered by a failed force of its staging directory (a seam), and, as root, by a small
 * tmpfs holding the store or the spills (skipped without root).
 */
class FullDiskTest {
  private static final long MIB = 1 << 20;
  private static final int BLOCKED_PARTITION = 7;
  private static final String FULL = "No space left on device";

  @TempDir Path parent;

  @AfterEach
  void restoreOpener() {
    StoreDirectory.directoryOpener = FileChannel::open;
    FullDisk.usableSpace = FULL_DISK_SEAM_DEFAULT;
  }

  private static final java.util.function.ToLongFunction<Path> FULL_DISK_SEAM_DEFAULT = FullDisk.usableSpace;

  /** As in SpillFailureTest: hi's top byte is the key's first byte, the record's partition. */
  private static final RecordHasher BY_FIRST_BYTE = (key, offset, length, result) -> {
    long n = ByteBuffer.wrap(key, offset + 1, 8).getLong();
    result[0] = ((long) (key[offset] & 0xFF) << 56) | (n & 0x00FF_FFFF_FFFF_FFFFL);
    result[1] = n * 0x9E37_79B9_7F4A_7C15L;
  };

  private static byte[] key(int partition, long n) {
    return ByteBuffer.allocate(9).put((byte) partition).putLong(n).array();
  }

  private static byte[] key(long i) {
    return ByteBuffer.allocate(8).putLong(i * 0x9E37_79B9_7F4A_7C15L).array();
  }

  /** Puts through {@code put} until the spill that writes partition 7 to /dev/full fails; returns its failure. */
  private static IOException fillUntilASpillFails(Path temporary, Putter put) throws IOException {
    Assumptions.assumeTrue(Files.isWritable(Path.of("/dev/full")), "no /dev/full: skipped");
    long n = 0;
    while (findPartitions(temporary) == null) {
      put.put(key(0, n++));
    }
    Files.createSymbolicLink(findPartitions(temporary).resolve("p" + BLOCKED_PARTITION), Path.of("/dev/full"));
    put.put(key(BLOCKED_PARTITION, n++));
    while (true) {
      try {
        put.put(key(0, n++));
      } catch (IOException e) {
        return e;
      }
    }
  }

  private interface Putter {
    void put(byte[] key) throws IOException;
  }

  @Test
  void aFullSpillNamesTheTemporaryDirectory() throws IOException {
    Path temporary = Files.createDirectory(parent.resolve("tmp"));
    Path target = parent.resolve("store");
    try (StoreBuilder builder =
        StoreBuilder.create(target).memoryBudget(2 * MIB).temporaryDirectory(temporary).hashers(seed -> BY_FIRST_BYTE)) {
      IOException e = fillUntilASpillFails(temporary, key -> builder.put(key, new byte[40]));
      assertTrue(e.getMessage().startsWith(FULL + " in the temporary directory " + temporary + ", where the sort spills"), e.getMessage());
      assertTrue(e.getMessage().contains("give another temporary directory"), e.getMessage());
    }
    StoreFiles.assertCleanFailure(target);
    assertEquals(List.of(), list(temporary));
  }

  @Test
  void aFullSpillOfAMergeBatchNamesTheTemporaryDirectory() throws IOException {
    Path base = parent.resolve("base");
    try (StoreBuilder builder = StoreBuilder.create(base).hashers(seed -> BY_FIRST_BYTE)) {
      builder.put(key(1, 1), new byte[1]).build();
    }
    Path temporary = Files.createDirectory(parent.resolve("tmp"));
    Path target = parent.resolve("merged");
    try (StoreMerger merger =
        StoreMerger.create(target).base(base).memoryBudget(2 * MIB).temporaryDirectory(temporary).hashers(seed -> BY_FIRST_BYTE)) {
      IOException e = fillUntilASpillFails(temporary, key -> merger.put(key, new byte[40]));
      assertTrue(e.getMessage().startsWith(FULL + " in the temporary directory " + temporary + ", where the sort spills"), e.getMessage());
    }
    assertFalse(Files.exists(target));
    assertEquals(List.of(), list(temporary));
  }

  /** Makes every force of a store's staging directory fail with an IOException of {@code message}. */
  private static void failForcesOfTheStagingDirectory(String message) {
    StoreDirectory.directoryOpener = (path, options) -> new DelegatingChannel(FileChannel.open(path, options)) {
      @Override
      public void force(boolean metaData) throws IOException {
        if (path.getFileName().toString().contains(".staging-")) {
          throw new IOException(message);
        }
        real.force(metaData);
      }
    };
  }

  /** Some file systems (NFS, thin volumes) report a full disk only when the store is forced. */
  @Test
  void aFullDiskWhenTheStoreIsForcedNamesTheStoresDirectory() throws IOException {
    Path stores = Files.createDirectory(parent.resolve("stores"));
    Path temporary = Files.createDirectory(parent.resolve("tmp"));
    failForcesOfTheStagingDirectory(FULL);
    Path target = stores.resolve("store");
    try (StoreBuilder builder = StoreBuilder.create(target).temporaryDirectory(temporary)) {
      for (int i = 0; i < 1000; i++) {
        builder.put(key(i), new byte[10]);
      }
      IOException e = assertThrows(IOException.class, builder::build);
      assertTrue(e.getMessage().startsWith(FULL + " in the store's directory " + stores + " (writing " + stores + "/.store.staging-"),
          e.getMessage());
      assertTrue(e.getMessage().endsWith("free space there, or write the store to another disk"), e.getMessage());
    }
    StoreFiles.assertCleanFailure(target);
  }

  /**
   * A JVM running in German gets the system's words for ENOSPC in German: before 2026-11-28 that
   * failure reached the caller as it was, naming no directory. Now a plain write failure on a file
   * system with (almost) no usable space is named as a full disk whatever its words.
   */
  @Test
  void aTranslatedFullDiskMessageIsNamedWhenTheFileSystemIsFull() throws IOException {
    String german = "Auf dem Gerät ist kein Speicherplatz mehr verfügbar";
    Path stores = Files.createDirectory(parent.resolve("stores"));
    Path temporary = Files.createDirectory(parent.resolve("tmp"));
    failForcesOfTheStagingDirectory(german);
    FullDisk.usableSpace = file -> file.startsWith(stores) ? 4096 : FULL_DISK_SEAM_DEFAULT.applyAsLong(file);
    Path target = stores.resolve("store");
    try (StoreBuilder builder = StoreBuilder.create(target).temporaryDirectory(temporary)) {
      for (int i = 0; i < 1000; i++) {
        builder.put(key(i), new byte[10]);
      }
      IOException e = assertThrows(IOException.class, builder::build);
      assertTrue(e.getMessage().startsWith(FULL + " in the store's directory " + stores + " (writing " + stores + "/.store.staging-"),
          e.getMessage());
      assertEquals(german, e.getCause().getMessage(), "the system's own words stay as the cause");
    }
    StoreFiles.assertCleanFailure(target);
  }

  /** The same words on a file system with space left are another failure: passed on unnamed. */
  @Test
  void aPlainFailureWithSpaceLeftOrOfAnotherKindIsNotCalledAFullDisk() {
    Path file = parent.resolve(".store.staging-1").resolve("data");
    FullDisk.usableSpace = f -> 10L << 30;
    IOException withSpace = new IOException("Eingabe-/Ausgabefehler");
    assertEquals(withSpace, FullDisk.named(withSpace, file));
    FullDisk.usableSpace = f -> 0;
    IOException missing = new java.nio.file.NoSuchFileException(file.toString());
    assertEquals(missing, FullDisk.named(missing, file), "a missing file is not a full disk, however full the disk");
    IOException unknownSpace = new IOException("Eingabe-/Ausgabefehler");
    FullDisk.usableSpace = f -> -1;
    assertEquals(unknownSpace, FullDisk.named(unknownSpace, file));
    FullDisk.usableSpace = f -> 0;
    IOException full = new IOException("Eingabe-/Ausgabefehler");
    assertTrue(FullDisk.named(full, file).getMessage().startsWith(FULL + " in the store's directory " + parent), FullDisk.named(full, file).getMessage());
  }

  /** As root: the store's disk, a small tmpfs, fills up while the data is written; the spills are elsewhere. */
  @Test
  void aFullStoreDiskNamesTheStoresDirectory() throws Exception {
    Path small = mountSmall();
    try {
      Path temporary = Files.createDirectory(parent.resolve("tmp"));
      Path target = small.resolve("store");
      try (StoreBuilder builder = StoreBuilder.create(target).memoryBudget(4 * MIB).temporaryDirectory(temporary)) {
        for (int i = 0; i < 200_000; i++) {
          builder.put(key(i), new byte[40]);
        }
        IOException e = assertThrows(IOException.class, builder::build);
        assertTrue(e.getMessage().startsWith(FULL + " in the store's directory " + small + " (writing "), e.getMessage());
      }
      Path base = parent.resolve("base");
      try (StoreBuilder builder = StoreBuilder.create(base)) {
        builder.put(key(-1), new byte[1]).build();
      }
      try (StoreMerger merger = StoreMerger.create(small.resolve("merged")).base(base).temporaryDirectory(temporary)) {
        for (int i = 0; i < 200_000; i++) {
          merger.put(key(i), new byte[40]);
        }
        IOException e = assertThrows(IOException.class, merger::merge);
        assertTrue(e.getMessage().startsWith(FULL + " in the store's directory " + small + " (writing "), e.getMessage());
      }
      assertEquals(List.of(), list(small));
      assertEquals(List.of(), list(temporary));
    } finally {
      unmount(small);
    }
  }

  /** As root: an artifact packed onto a small tmpfs that fills up. */
  @Test
  void aFullDiskWhilePackingNamesTheArtifactsDirectory() throws Exception {
    Path store = parent.resolve("store");
    try (StoreBuilder builder = StoreBuilder.create(store)) {
      for (int i = 0; i < 200_000; i++) {
        builder.put(key(i), new byte[40]);
      }
      builder.build();
    }
    Path small = mountSmall();
    try {
      IOException e = assertThrows(IOException.class, () -> StoreArtifacts.pack(store, small.resolve("store.varve")));
      assertTrue(e.getMessage().startsWith(FULL + " in the store's directory " + small + " (writing "), e.getMessage());
      assertEquals(List.of(), list(small));
    } finally {
      unmount(small);
    }
  }

  /** As root: the spills' disk, a small tmpfs, fills up; the store's directory has room. */
  @Test
  void aFullTemporaryDiskNamesTheTemporaryDirectory() throws Exception {
    Path small = mountSmall();
    try {
      Path target = parent.resolve("store");
      try (StoreBuilder builder = StoreBuilder.create(target).memoryBudget(2 * MIB).temporaryDirectory(small)) {
        IOException e = assertThrows(IOException.class, () -> {
          for (int i = 0; i < 400_000; i++) {
            builder.put(key(i), new byte[40]);
          }
          builder.build();
        });
        assertTrue(e.getMessage().startsWith(FULL + " in the temporary directory " + small + ", where the sort spills"), e.getMessage());
      }
      StoreFiles.assertCleanFailure(target);
      assertEquals(List.of(), list(small));
    } finally {
      unmount(small);
    }
  }

  private Path mountSmall() throws Exception {
    Path small = Files.createDirectory(parent.resolve("small"));
    Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", small.toString()),
        "mounting a tmpfs needs root: skipped");
    return small;
  }

  private static void unmount(Path small) throws Exception {
    run("umount", "-l", small.toString()); // lazily: a leaked descriptor must not keep it mounted
  }

  private static boolean run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
  }
}
