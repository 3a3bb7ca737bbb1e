package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.StoreRoot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/** Numbered versions, an atomic CURRENT pointer, readers that follow it, rollback. */
class VersionedPublishingTest {
  private static final int KEYS = 1_000;

  @TempDir Path temp;

  private static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  /** Every key of version {@code v} maps to "v" + v. */
  private static Path buildVersion(StoreRoot root, long v) throws IOException {
    Path dir = root.newVersion();
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      byte[] value = ("v" + v).getBytes(StandardCharsets.UTF_8);
      for (int i = 0; i < KEYS; i++) {
        builder.put(key(i), value);
      }
      builder.build();
    }
    return dir;
  }

  /**
   * A publish killed between writing its pointer file and renaming it leaves that file behind;
   * the next publish (not a build beside it, which may run while another process publishes)
   * removes it. {@link KillTest} once ended on such a kill and expected a build to remove it.
   */
  @Test
  void thePointerFileOfAKilledPublishIsRemovedByTheNextPublish() throws IOException {
    StoreRoot root = StoreRoot.open(temp.resolve("root"));
    Path first = buildVersion(root, 1);
    Path stale = Files.writeString(root.directory().resolve("." + StoreRoot.CURRENT + ".4242.tmp"), "v0000000001\n");
    Path second = buildVersion(root, 2);
    assertTrue(Files.exists(stale), "a build removed another process's pointer file");
    root.publish(second.getFileName().toString());
    assertFalse(Files.exists(stale), "the next publish left a killed publish's pointer file");
    assertEquals(Optional.of(second.getFileName().toString()), root.current());
    assertTrue(Files.isDirectory(first));
  }

  @Test
  void rootNumbersVersionsPublishesAndRollsBack() throws IOException {
    StoreRoot root = StoreRoot.open(temp.resolve("root"));
    assertTrue(root.current().isEmpty());
    assertThrows(NoSuchFileException.class, () -> FollowingStore.open(root.directory()));
    Path first = buildVersion(root, 1);
    assertEquals("v0000000001", first.getFileName().toString());
    Path second = buildVersion(root, 2);
    assertEquals("v0000000002", second.getFileName().toString());
    assertEquals(List.of("v0000000001", "v0000000002"), root.versions());
    assertThrows(NoSuchFileException.class, () -> root.publish("v0000000003"), "incomplete versions cannot be published");
    assertThrows(IllegalArgumentException.class, () -> root.publish("../elsewhere"));
    root.publish("v0000000001");
    try (FollowingStore store = FollowingStore.open(root.directory())) {
      assertArrayEquals("v1".getBytes(StandardCharsets.UTF_8), store.get(key(5)));
      assertFalse(store.refresh());
      root.publish("v0000000002");
      assertTrue(store.refresh());
      assertEquals("v0000000002", store.version());
      assertArrayEquals("v2".getBytes(StandardCharsets.UTF_8), store.get(key(5)));
      assertThrows(IllegalStateException.class, () -> root.delete("v0000000002"), "the current version");
      assertEquals("v0000000001", root.rollback());
      assertTrue(store.refresh());
      assertArrayEquals("v1".getBytes(StandardCharsets.UTF_8), store.get(key(5)));
      assertThrows(IllegalStateException.class, root::rollback, "nothing older");
      root.delete("v0000000002");
      assertEquals(List.of("v0000000001"), root.versions());
    }
    Files.writeString(root.directory().resolve(StoreRoot.CURRENT), "../../etc\n");
    assertThrows(CorruptStoreException.class, root::current);
  }

  /**
   * A reader given a root that does not exist (a mistyped path, a volume not mounted yet) says so
   * and creates nothing: it made the directory and its parents, and on a read-only mount failed
   * with the mount's error instead.
   */
  @Test
  void followingAMissingRootCreatesNothing() {
    Path missing = temp.resolve("not-mounted/users");
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> FollowingStore.open(missing));
    assertEquals(missing.toString(), e.getFile());
    assertThrows(NoSuchFileException.class, () -> FollowingShardedStore.open(missing));
    assertFalse(Files.exists(temp.resolve("not-mounted")), "a reader created the root");
  }

  /**
   * A version name used again: the batch job rolls back from a bad version, deletes it, and its
   * next build gets the same number ({@link StoreRoot#newVersion} numbers after the versions
   * present). A reader that did not refresh in between served the deleted version on, for good,
   * since {@code CURRENT} named the version it had open; it now tells versions by their meta file.
   */
  @Test
  void aVersionNameUsedAgainIsSwappedIn() throws IOException {
    StoreRoot root = StoreRoot.open(temp.resolve("root"));
    root.publish(buildVersion(root, 1).getFileName().toString());
    root.publish(buildVersion(root, 2).getFileName().toString());
    try (FollowingStore store = FollowingStore.open(root.directory())) {
      assertEquals("v2", new String(store.get(key(7)), StandardCharsets.UTF_8));
      assertEquals("v0000000001", root.rollback());
      root.delete("v0000000002");
      Path again = buildVersion(root, 3);
      assertEquals("v0000000002", again.getFileName().toString());
      root.publish("v0000000002");
      assertTrue(store.refresh(), "the version named v0000000002 is another build");
      assertEquals("v3", new String(store.get(key(7)), StandardCharsets.UTF_8));
      assertFalse(store.refresh(), "nothing new");
    }
  }

  /**
   * A version that is a one-file artifact (which {@link Store#open} takes as it takes a directory)
   * is told apart by the meta file it holds too: a refresh that finds it still current answers
   * false, where reading its meta as a directory's would fail every refresh.
   */
  @Test
  void aVersionThatIsAnArtifactIsFollowed() throws IOException {
    StoreRoot root = StoreRoot.open(temp.resolve("root"));
    Path built = buildVersion(StoreRoot.open(temp.resolve("builds")), 1);
    io.varve.builder.StoreArtifacts.pack(built, root.directory().resolve("v0000000001"));
    Files.writeString(root.directory().resolve(StoreRoot.CURRENT), "v0000000001\n");
    try (FollowingStore store = FollowingStore.open(root.directory())) {
      assertEquals("v1", new String(store.get(key(3)), StandardCharsets.UTF_8));
      assertFalse(store.refresh(), "nothing new");
    }
  }

  @ParameterizedTest
  @EnumSource(DataAccess.class)
  void readersFollowingCurrentNeverFailWhileVersionsSwapUnderLoad(DataAccess access) throws Exception {
    StoreRoot root = StoreRoot.open(temp.resolve("root"));
    buildVersion(root, 1);
    root.publish(root.versions().get(0));
    int swaps = 100;
    try (FollowingStore store = FollowingStore.open(root.directory(), access)) {
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicLong lookups = new AtomicLong();
      List<Thread> readers = new ArrayList<>();
      java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
      for (int t = 0; t < 3; t++) {
        long seed = 0x5EA0L + t;
        Thread reader =
            new Thread(
                () -> {
                  SplittableRandom random = new SplittableRandom(seed);
                  long lastVersion = 0;
                  while (!stop.get() && failure.get() == null) {
                    try {
                      byte[] value = store.get(key(random.nextInt(KEYS)));
                      String text = new String(value, StandardCharsets.UTF_8);
                      long version = Long.parseLong(text.substring(1));
                      if (version < lastVersion || version > swaps + 1) {
                        throw new AssertionError("version " + version + " after " + lastVersion);
                      }
                      lastVersion = version;
                      lookups.incrementAndGet();
                    } catch (Throwable e) {
                      failure.compareAndSet(null, e);
                    }
                  }
                });
        reader.start();
        readers.add(reader);
      }
      for (long v = 2; v <= swaps + 1; v++) {
        Path dir = buildVersion(root, v);
        root.publish(dir.getFileName().toString());
        assertTrue(store.refresh());
        List<String> versions = root.versions();
        if (versions.size() > 3) {
          root.delete(versions.get(0));
        }
      }
      stop.set(true);
      for (Thread reader : readers) {
        reader.join();
      }
      if (failure.get() != null) {
        throw new AssertionError("a lookup failed during the swaps", failure.get());
      }
      assertTrue(lookups.get() > 0);
      assertEquals(String.format("v%010d", swaps + 1), store.version());
      assertEquals(3, root.versions().size());
    }
  }

  /**
   * The version-swap path at full speed: versions built once, then published and swapped in
   * turn as fast as two refreshing threads can, while four threads look keys up. Every lookup
   * must answer from some complete version (a swap closes the old store under its readers, the
   * path of issue 19's JVM crash). Swaps: {@code -Dvarve.closeRace.rounds} (default 300) times 4.
   */
  @ParameterizedTest
  @EnumSource(DataAccess.class)
  void rapidSwapsNeverFailALookup(DataAccess access) throws Exception {
    StoreRoot root = StoreRoot.open(temp.resolve("root"));
    List<String> names = new ArrayList<>();
    for (long v = 1; v <= 3; v++) {
      names.add(buildVersion(root, v).getFileName().toString());
    }
    root.publish(names.get(0));
    int swaps = 4 * Integer.getInteger("varve.closeRace.rounds", 300);
    try (FollowingStore store = FollowingStore.open(root.directory(), access)) {
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicLong lookups = new AtomicLong();
      java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        long seed = 0x5EA1L + t;
        threads.add(new Thread(() -> {
          SplittableRandom random = new SplittableRandom(seed);
          while (!stop.get() && failure.get() == null) {
            try {
              int k = random.nextInt(KEYS);
              String value = new String(store.get(key(k)), StandardCharsets.UTF_8);
              if (!value.equals("v1") && !value.equals("v2") && !value.equals("v3")) {
                throw new AssertionError("key " + k + ": " + value);
              }
              if (store.indexOf(key(k)) < 0) {
                throw new AssertionError("key " + k + " absent");
              }
              lookups.incrementAndGet();
            } catch (Throwable e) {
              failure.compareAndSet(null, e);
            }
          }
        }));
      }
      for (int t = 0; t < 2; t++) {
        int first = t;
        threads.add(new Thread(() -> {
          try {
            for (int swap = first; swap < swaps && failure.get() == null; swap += 2) {
              synchronized (root) {
                root.publish(names.get(swap % names.size()));
              }
              store.refresh();
            }
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
          }
        }));
      }
      threads.forEach(Thread::start);
      for (Thread refresher : threads.subList(4, 6)) {
        refresher.join();
      }
      stop.set(true);
      for (Thread thread : threads) {
        thread.join();
      }
      if (failure.get() != null) {
        throw new AssertionError("a lookup or refresh failed during the swaps", failure.get());
      }
      System.out.println("VersionedPublishingTest " + access + ": " + swaps + " swaps, " + lookups.get() + " lookups");
      assertTrue(lookups.get() > 0);
    }
  }
}
