package io.varve.builder;

import io.varve.core.artifact.StoreFiles;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.StoreFile;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;

/**
 * Tells a store deleted while a merge or re-index reads it from a damaged one. Both show as files
 * missing that its meta listed; but an old version removed while a merge's batch was read is the
 * operator's to fix by giving a store that exists, not a damaged store to rebuild. A store is gone
 * when its directory or artifact is, or its meta file: a directory whose meta is still there but
 * lacks a file the meta lists stays damaged.
 */
final class GoneStores {
  private GoneStores() {}

  /**
   * Throws a {@link NoSuchFileException} naming the store (or its meta file), caused by {@code
   * failure}, when {@code failure} is a missing or damaged file and the store is gone; returns
   * otherwise, for the caller to throw {@code failure}.
   */
  static void throwIfGone(StoreFiles files, Exception failure) throws NoSuchFileException {
    if (!(failure instanceof CorruptStoreException || failure instanceof NoSuchFileException)) {
      return; // a store deleted after its files were opened reads on: this is another failure
    }
    NoSuchFileException gone;
    if (!Files.exists(files.origin())) {
      gone = new NoSuchFileException(files.origin().toString(), null,
          "the store is gone: it was deleted while it was being read; give a store that exists");
    } else if (!files.isArtifact() && !Files.exists(files.origin().resolve(StoreFile.META.fileName()))) {
      gone = new NoSuchFileException(files.nameOf(StoreFile.META.fileName()), null,
          "the store is gone: its files were deleted while it was being read; give a store that exists");
    } else {
      return;
    }
    gone.initCause(failure);
    throw gone;
  }
}
