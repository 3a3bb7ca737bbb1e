package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.StoreRoot;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower whose newest version stays damaged read all of it again at every refresh (a loaded
 * follower: the whole data file, each time), to find the same damage: unbounded I/O for as long as
 * nobody repairs it. It now reads a version found damaged again only once its files change (or
 * another version is published), and each refresh still throws the damage. The files' times are
 * set an hour back, as a version published a while ago has them: times within {@link
 * VersionFiles#SETTLED_MILLIS} of a read are not trusted, and such a version is read again.
 */
class DamagedVersionRereadTest {
  private static final long SEED = 0xDA3A6EDL;
  private static final int REFRESHES = 20;

  @TempDir Path temp;
  private Map<ByteBuffer, byte[]> records;
  private StoreRoot root;
  private final AtomicInteger reads = new AtomicInteger();

  @BeforeEach
  void records() throws IOException {
    System.out.println("DamagedVersionRereadTest seed " + Long.toHexString(SEED));
    records = TestRecords.variable(20_000, SEED, 16, 60);
    root = StoreRoot.open(temp.resolve("root"));
  }

  private Path build() throws IOException {
    Path version = root.newVersion();
    try (StoreBuilder builder = StoreBuilder.create(version)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    return version;
  }

  private FollowingStore follow(DataAccess access) throws IOException {
    return FollowingStore.open(root.directory(), version -> {
      reads.incrementAndGet();
      return Store.open(version, access);
    });
  }

  @Test
  void aLoadedVersionWhoseFileStaysDamagedIsLoadedOnceMore() throws IOException {
    Path version = build();
    root.publish(version.getFileName().toString());
    Path data = version.resolve("data");
    byte[] intact = Files.readAllBytes(data);
    int damagedByte = intact.length / 2;
    overwrite(data, damagedByte, new byte[] {(byte) ~intact[damagedByte]});
    ageFiles(version);
    try (FollowingStore store = follow(DataAccess.LOADED)) {
      assertEquals(1, reads.get());
      int damaged = 0;
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        try {
          assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
        } catch (CorruptStoreException found) {
          damaged++;
        }
      }
      assertEquals(1, damaged, "records damaged by byte " + damagedByte);
      for (int i = 0; i < REFRESHES; i++) {
        CorruptStoreException e = assertThrows(CorruptStoreException.class, store::refresh, "refresh " + i);
        assertTrue(e.getMessage().contains(data.toString()) && e.getMessage().contains("cannot be opened"), e.getMessage());
        if (i == REFRESHES - 1) {
          System.out.println("DamagedVersionRereadTest: " + e.getMessage());
        }
      }
      assertEquals(2, reads.get(), "loads of the version in " + REFRESHES + " refreshes while its file stayed damaged");
      assertEquals(version.getFileName().toString(), store.version());

      overwrite(data, 0, intact); // repaired in place: its time changes
      assertTrue(store.refresh(), "the repaired version was not loaded again");
      assertEquals(3, reads.get());
      checkAll(store);
      assertFalse(store.refresh());
    }
  }

  @Test
  void aNewVersionThatStaysDamagedIsReadOnceUntilItChanges() throws IOException {
    Path first = build();
    root.publish(first.getFileName().toString());
    try (FollowingStore store = follow(DataAccess.MAPPED)) {
      Path second = build();
      Path index = indexOf(second);
      byte[] intact = Files.readAllBytes(index);
      overwrite(index, intact.length / 2, new byte[] {(byte) ~intact[intact.length / 2]});
      ageFiles(second);
      root.publish(second.getFileName().toString());
      for (int i = 0; i < REFRESHES; i++) {
        CorruptStoreException e = assertThrows(CorruptStoreException.class, store::refresh, "refresh " + i);
        assertTrue(e.getMessage().contains(index.toString()), e.getMessage());
      }
      assertEquals(2, reads.get(), "opens in " + REFRESHES + " refreshes while the new version stayed damaged");
      assertEquals(first.getFileName().toString(), store.version());
      checkAll(store);

      // Replaced by a repaired copy with the same size and time: its identity tells.
      Path copy = second.resolve("index.repaired");
      Files.write(copy, intact);
      Files.setLastModifiedTime(copy, Files.getLastModifiedTime(index));
      Files.move(copy, index, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      assertTrue(store.refresh(), "the repaired version was not opened");
      assertEquals(3, reads.get());
      assertEquals(second.getFileName().toString(), store.version());
      checkAll(store);
    }
  }

  @Test
  void aDamagedVersionIsReadAgainWhenAnotherIsPublished() throws IOException {
    Path first = build();
    root.publish(first.getFileName().toString());
    try (FollowingStore store = follow(DataAccess.MAPPED)) {
      Path second = build();
      Path index = indexOf(second);
      Files.delete(index);
      Files.write(index, new byte[100]);
      ageFiles(second);
      root.publish(second.getFileName().toString());
      assertThrows(CorruptStoreException.class, store::refresh);
      assertThrows(CorruptStoreException.class, store::refresh);
      assertEquals(2, reads.get());
      root.publish(first.getFileName().toString()); // rolled back: nothing to read
      assertFalse(store.refresh());
      root.publish(second.getFileName().toString()); // the same damaged files again: not read
      assertThrows(CorruptStoreException.class, store::refresh);
      assertEquals(2, reads.get());
      Path third = build();
      root.publish(third.getFileName().toString());
      assertTrue(store.refresh());
      assertEquals(3, reads.get());
      checkAll(store);
    }
  }

  /**
   * A version replaced while a refresh opened it, by a whole copy that kept its files' times (cp -a,
   * rsync -a): the damage the open saw belongs to the files replaced, so the copy must be read at
   * the next refresh, not refused for the damage of files that are gone.
   */
  @Test
  void aVersionReplacedWhileItWasOpenedIsReadAgain() throws IOException {
    Path first = build();
    root.publish(first.getFileName().toString());
    Path second = build();
    Path intact = temp.resolve("intact-copy");
    copyKeepingTimes(second, intact, hourAgo());
    Path index = indexOf(second);
    overwrite(index, Files.size(index) / 2, new byte[] {0x55, 0x55});
    ageFiles(second);
    AtomicInteger attempts = new AtomicInteger();
    try (FollowingStore store = FollowingStore.open(root.directory(), version -> {
      reads.incrementAndGet();
      try {
        return Store.open(version);
      } finally {
        if (version.equals(second) && attempts.incrementAndGet() == 1) {
          // Replaced as the open fails: the damaged files go, the intact copy takes their name.
          io.varve.core.files.FileTrees.deleteTree(second);
          Files.move(intact, second);
        }
      }
    })) {
      root.publish(second.getFileName().toString());
      assertThrows(CorruptStoreException.class, store::refresh);
      assertTrue(store.refresh(), "the intact copy that replaced the damaged version was not read");
      assertEquals(second.getFileName().toString(), store.version());
      checkAll(store);
    }
  }

  /** Files written just now may be written again within their time's tick: read again each time. */
  @Test
  void aVersionDamagedJustNowIsReadAgain() throws IOException {
    Path first = build();
    root.publish(first.getFileName().toString());
    try (FollowingStore store = follow(DataAccess.MAPPED)) {
      Path second = build();
      Path index = indexOf(second);
      Files.write(index, new byte[100]);
      Files.setLastModifiedTime(index, FileTime.fromMillis(System.currentTimeMillis() + 3_600_000));
      root.publish(second.getFileName().toString());
      assertThrows(CorruptStoreException.class, store::refresh);
      assertThrows(CorruptStoreException.class, store::refresh);
      assertEquals(3, reads.get(), "a version with a file written after the read was not read again");
    }
  }

  /** The file a lookup finds its record by: the index, or a paged store's page table. */
  private static Path indexOf(Path version) {
    Path index = version.resolve("index");
    return Files.exists(index) ? index : version.resolve("pages");
  }

  private static void overwrite(Path file, long position, byte[] bytes) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(bytes), position);
    }
  }

  private static FileTime hourAgo() {
    return FileTime.fromMillis(System.currentTimeMillis() - 3_600_000);
  }

  /** Sets every file's modification time an hour back, as a version published a while ago has it. */
  private static void ageFiles(Path version) throws IOException {
    FileTime hourAgo = hourAgo();
    try (Stream<Path> files = Files.list(version)) {
      for (Path file : (List<Path>) files.toList()) {
        Files.setLastModifiedTime(file, hourAgo);
      }
    }
  }

  /** Copies the files of {@code version} to {@code copy}, each given the time {@code time}, as the damaged ones will have. */
  private static void copyKeepingTimes(Path version, Path copy, FileTime time) throws IOException {
    Files.createDirectory(copy);
    try (Stream<Path> files = Files.list(version)) {
      for (Path file : (List<Path>) files.toList()) {
        Path to = copy.resolve(file.getFileName());
        Files.copy(file, to);
        Files.setLastModifiedTime(to, time);
      }
    }
  }

  private void checkAll(FollowingStore store) {
    for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
      assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
    }
  }
}
