package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.files.FileTrees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store read by a merge or a re-index that is deleted meanwhile (an old version removed while
 * the merge's batch was being read): a {@link NoSuchFileException} that names it and says it is
 * gone, not a {@code CorruptStoreException}. Until 2026-11-28 both said "missing, but the meta file
 * lists it (damaged store)", and {@code varve merge} told the operator to rebuild a damaged store.
 * A store whose meta is there but one of its files is not stays damaged (HostileCommandCases).
 */
class DeletedBaseTest {
  @TempDir Path parent;

  private static byte[] key(long i) {
    return ByteBuffer.allocate(8).putLong(i * 0x9E37_79B9_7F4A_7C15L).array();
  }

  private Path base(String name) throws IOException {
    Path base = parent.resolve(name);
    try (StoreBuilder builder = StoreBuilder.create(base)) {
      for (int i = 0; i < 1000; i++) {
        builder.put(key(i), new byte[1 + i % 5]);
      }
      builder.build();
    }
    return base;
  }

  @Test
  void aMergeWhoseBaseDirectoryWasDeletedSaysItIsGone() throws IOException {
    Path base = base("base");
    Path target = parent.resolve("merged");
    try (StoreMerger merger = StoreMerger.create(target).base(base)) {
      merger.put(key(5000), new byte[3]);
      FileTrees.deleteTree(base);
      NoSuchFileException e = assertThrows(NoSuchFileException.class, merger::merge);
      assertEquals(base.toString(), e.getFile());
      assertTrue(e.getMessage().contains("the store is gone"), e.getMessage());
    }
    StoreFiles.assertCleanFailure(target);
  }

  @Test
  void aMergeWhoseBaseFilesWereDeletedSaysItIsGone() throws IOException {
    Path base = base("base");
    Path target = parent.resolve("merged");
    try (StoreMerger merger = StoreMerger.create(target).base(base)) {
      merger.put(key(5000), new byte[3]);
      try (Stream<Path> files = Files.list(base)) {
        files.forEach(file -> {
          try {
            Files.delete(file);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
      }
      NoSuchFileException e = assertThrows(NoSuchFileException.class, merger::merge);
      assertEquals(base.resolve("meta").toString(), e.getFile());
      assertTrue(e.getMessage().contains("the store is gone"), e.getMessage());
    }
    StoreFiles.assertCleanFailure(target);
  }

  @Test
  void aReindexWhoseSourceWasDeletedSaysItIsGone() throws IOException {
    Path source = base("source");
    Path target = parent.resolve("dense");
    BuildOptions deleting = BuildOptions.builder()
        .indexParameters(StoreBuilder.DEFAULT_INDEX)
        .listener((phase, done, total) -> {
          if (phase == BuildListener.Phase.INDEX && done == 0) {
            try {
              FileTrees.deleteTree(source);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }
        })
        .build();
    assertTrue(StoreFiles.readMeta(source).isPaged(), "a paged store is written anew, its source scanned after INDEX starts");
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> StoreReindexer.reindex(source, target, deleting));
    assertEquals(source.toString(), e.getFile());
    assertTrue(e.getMessage().contains("the store is gone"), e.getMessage());
    assertFalse(Files.exists(target));
    StoreFiles.assertCleanFailure(target);
  }
}
