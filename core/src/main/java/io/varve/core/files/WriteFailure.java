package io.varve.core.files;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The first write or sync of a mutable store's files that failed, after which the store takes no
 * more writes. What reached the device is uncertain then: a failed {@code fsync} may have dropped
 * pages it could not write, and a later one would report success, so no later write could be
 * acknowledged honestly. Reads go on; reopening the store recovers what its files hold, unless the
 * failure was damage found in them ({@link CorruptStoreException}), which the refusal then names.
 * Thread-safe.
 */
public final class WriteFailure {
  private final String owner;
  private volatile Exception first;

  /** For the store {@code owner} names in its errors (for example "the SILT store in /data/silt"). */
  public WriteFailure(String owner) {
    this.owner = owner;
  }

  /** Keeps {@code e}, unless a failure came first; returns it, for {@code throw}. */
  public <E extends Exception> E record(E e) {
    if (first == null) {
      first = e;
    }
    return e;
  }

  /** Whether a write or sync has failed. */
  public boolean failed() {
    return first != null;
  }

  /** @throws IOException once a write or sync has failed */
  public void check() throws IOException {
    Exception failed = first;
    if (failed instanceof CorruptStoreException) {
      // "Reopen it" would send the operator to an open that meets the same damage.
      throw new IOException(owner + " takes no more writes since it found its files damaged (" + failed.getMessage()
          + "); reads go on; repair or restore the files before it is reopened", failed);
    }
    if (failed != null) {
      throw new IOException(owner + " takes no more writes since a write or sync of its files failed;"
          + " reopen it to recover what reached them", failed);
    }
  }

  /** As {@link #check}, for stores whose operations throw {@link UncheckedIOException}. */
  public void checkUnchecked() {
    try {
      check();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
