package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.varve.builder.StoreArtifacts;
import io.varve.builder.StoreBuilder;
import io.varve.core.store.StoreFile;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An open mapped store holds its mapping, not a file descriptor: Chronicle Bytes kept the data
 * file open for as long as the store, one descriptor per store, so that a sharded store of a
 * thousand shards could not open under the usual soft limit of 1,024 descriptors ("Too many open
 * files"), nor a follower swap two versions of 600. The mapping outlives the descriptor, which
 * is now closed once the file is mapped. Lookups answer, and close still unmaps.
 */
class MappedStoreDescriptorsTest {
  private static final int STORES = 40;

  @TempDir Path temp;

  @Test
  void openMappedStoresHoldNoDescriptors() throws IOException {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")) && ChronicleAccess.isGranted(), "needs /proc and Chronicle's JVM options");
    Map<ByteBuffer, byte[]> records = TestRecords.variable(500, 0xFDL, 16, 64);
    Path dir = temp.resolve("store");
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    Path artifact = temp.resolve("store.varve");
    StoreArtifacts.pack(dir, artifact);
    for (Path path : List.of(dir, artifact)) {
      Path mapped = (path == dir ? dir.resolve(StoreFile.DATA.fileName()) : artifact).toRealPath();
      List<Store> stores = new ArrayList<>();
      try {
        for (int i = 0; i < STORES; i++) {
          stores.add(Store.open(path));
        }
        assertEquals(0, descriptorsOf(mapped), path + ": descriptors held by " + STORES + " open stores");
        // (an artifact's mapping is split where only its data entry is advised for random access)
        assertTrue(mappingsOf(mapped) >= STORES, path + ": a mapping per store");
        for (Store store : stores) {
          for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
            assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
          }
        }
      } finally {
        for (Store store : stores) {
          store.close();
        }
      }
      assertEquals(0, mappingsOf(mapped), "closing unmaps");
    }
  }

  private static long descriptorsOf(Path file) throws IOException {
    long n = 0;
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          if (Files.readSymbolicLink(fd).equals(file)) {
            n++;
          }
        } catch (IOException gone) {
          // The listing's own descriptor, closed by now.
        }
      }
    }
    return n;
  }

  private static long mappingsOf(Path file) throws IOException {
    try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
      return lines.filter(line -> line.endsWith(" " + file)).count();
    }
  }
}
