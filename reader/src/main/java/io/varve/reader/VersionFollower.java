package io.varve.reader;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.StoreRoot;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The version switching that {@link FollowingStore} and {@link FollowingShardedStore} share: one
 * open reader of the version a {@link StoreRoot}'s {@code CURRENT} names, swapped for the next one
 * by {@link #refresh()}, which closes the old reader after the swap (the reader's close waits for
 * the lookups in flight on it). A lookup runs on whichever reader is current when it starts; one
 * that meets a reader closed under it ({@link StoreClosedException}) runs again on the new one, so
 * it answers from one whole version, never from two.
 *
 * <p>A reader that failed for good (its mapped data file was cut or rewritten under it, so that it
 * refuses every lookup) is opened anew by the next refresh even when its version's name and build
 * are unchanged: once the files are whole again (repaired in place, or the same build published
 * again) the follower serves again; until then the refresh throws and says which reader is kept.
 * Likewise a loaded reader that found damaged records in its copy, which it keeps after the files
 * are repaired: the version is loaded anew and its copy checked before it is swapped in, so that a
 * refresh never swaps one damaged copy for another.
 *
 * <p>A version found damaged (it cannot be opened, or its copy opened anew does not check) is not
 * read again while its files stay as they were ({@link VersionFiles}): each refresh throws the
 * damage again, without the read, until a file changes or another version is published. A loaded
 * follower read all of a damaged version at every refresh before.
 *
 * <p>The readers' own {@code close} must wait for their lookups in flight and make later calls
 * throw {@link StoreClosedException}, as {@link Store} and {@link ShardedStore} do.
 *
 * <p>Thread-safe: lookups from any number of threads; refreshes are serialized with each other.
 * {@link #close()} does not wait for a refresh that is opening a version (a load can take minutes,
 * an open on a stuck mount for ever): that refresh then closes what it opened and throws {@link
 * StoreClosedException}.
 *
 * @param <S> the reader of one version
 */
final class VersionFollower<S> {
  /** Opens the reader of one version's directory. */
  @FunctionalInterface
  interface Opener<S> {
    S open(Path version) throws IOException;
  }

  /**
   * Whether {@code reader} was opened from what the directory {@code version} holds now: a version
   * name can be used again (rolled back from, deleted, and numbered anew by the next build), so
   * the name alone does not tell.
   */
  @FunctionalInterface
  interface SameBuild<S> {
    boolean test(S reader, Path version) throws IOException;
  }

  /** Why a reader must be opened anew (it refuses every lookup for good, or a loaded copy is damaged), or null. */
  @FunctionalInterface
  interface Failure<S> {
    RuntimeException of(S reader);
  }

  /**
   * Checks a reader opened anew in place of a failed one before it is swapped in.
   *
   * @throws CorruptStoreException when it is damaged too
   */
  @FunctionalInterface
  interface Check<S> {
    void check(S reader);
  }

  /** A reader and the version name it was opened from. */
  private record Version<S>(String name, S reader) {}

  /** A version that could not be opened, why, and what its files were: see {@link VersionFiles}. */
  private record Refused(String name, VersionFiles files, CorruptStoreException why) {}

  private final StoreRoot root;
  private final Opener<S> opener;
  private final Consumer<S> closer;
  private final SameBuild<S> sameBuild;
  private final Failure<S> failure;
  private final Check<S> checkReopened;
  private volatile Version<S> current;
  private volatile boolean closed;
  /** Serializes refreshes; {@code this} guards the swap and {@link #close()}, which never wait for an open. */
  private final Object refreshing = new Object();
  /** The last version found damaged, or null; guarded by {@link #refreshing}. */
  private Refused refused;

  private VersionFollower(
      StoreRoot root,
      Opener<S> opener,
      Consumer<S> closer,
      SameBuild<S> sameBuild,
      Failure<S> failure,
      Check<S> checkReopened,
      Version<S> first) {
    this.root = root;
    this.opener = opener;
    this.closer = closer;
    this.sameBuild = sameBuild;
    this.failure = failure;
    this.checkReopened = checkReopened;
    this.current = first;
  }

  /**
   * Opens the version {@code CURRENT} names under {@code rootDirectory} with {@code opener};
   * {@code closer} closes a version's reader; {@code sameBuild} tells whether a reader still
   * serves what a version's directory holds, for a refresh that finds the version's name unchanged;
   * {@code failure} tells whether a reader failed for good, so that a refresh opens its version anew;
   * {@code checkReopened} checks a reader opened in place of a failed one.
   *
   * @throws NoSuchFileException when {@code rootDirectory} does not exist (it is not created) or
   *     nothing is published yet
   */
  static <S> VersionFollower<S> open(
      Path rootDirectory, Opener<S> opener, Consumer<S> closer, SameBuild<S> sameBuild, Failure<S> failure, Check<S> checkReopened)
      throws IOException {
    Objects.requireNonNull(opener, "opener");
    Objects.requireNonNull(closer, "closer");
    Objects.requireNonNull(sameBuild, "sameBuild");
    Objects.requireNonNull(failure, "failure");
    Objects.requireNonNull(checkReopened, "checkReopened");
    return Interrupted.of(rootDirectory, "opening the version it follows", () -> {
      StoreRoot root = StoreRoot.existing(rootDirectory);
      String name = currentName(root);
      Version<S> first = new Version<>(name, opener.open(root.path(name)));
      return new VersionFollower<>(root, opener, closer, sameBuild, failure, checkReopened, first);
    });
  }

  private static String currentName(StoreRoot root) throws IOException {
    return root.current().orElseThrow(
        () -> new NoSuchFileException(root.directory().resolve(StoreRoot.CURRENT).toString(), null, "nothing is published"));
  }

  /**
   * Runs {@code lookup} on the current version's reader, again on the next one if a refresh closed
   * the reader under it.
   *
   * @throws StoreClosedException after {@link #close()}
   */
  <T> T onCurrent(Function<S, T> lookup) {
    while (true) {
      Version<S> version = current;
      checkOpen();
      try {
        return lookup.apply(version.reader());
      } catch (StoreClosedException closedUnderUs) {
        // A refresh swaps before it closes: if the version is still current, nobody swapped.
        if (closed) {
          throw closedException();
        }
        if (current == version) {
          throw closedUnderUs;
        }
      }
    }
  }

  /** The name of the version being served. */
  String version() {
    checkOpen();
    return current.name();
  }

  /** The root followed. */
  StoreRoot root() {
    return root;
  }

  /**
   * Opens the version {@code CURRENT} names if it is not the one served (another name, or the same
   * name holding another build) or the one served failed for good, swaps it in and closes the old
   * one (after its lookups in flight). When the new version cannot be opened, the old one is still
   * served and the exception says so (and why it refuses its lookups, if it failed).
   *
   * @return whether the version changed
   * @throws StoreClosedException after {@link #close()}
   */
  boolean refresh() throws IOException {
    synchronized (refreshing) {
      checkOpen();
      return Interrupted.of(root.directory(), "refreshing", this::refreshUninterrupted);
    }
  }

  private boolean refreshUninterrupted() throws IOException {
    String name = currentName(root);
    Version<S> old = current;
    RuntimeException failed = failure.of(old.reader());
    if (failed == null && name.equals(old.name()) && isSameBuild(old, name)) {
      return false;
    }
    Path path = root.path(name);
    VersionFiles before = VersionFiles.read(path);
    Refused known = refused;
    if (known != null && known.name().equals(name) && known.files().equals(before)) {
      throw new CorruptStoreException(notSwapped(name, old, failed) + known.why().getMessage()
          + " (not read again: its files are unchanged since it was found damaged)", known.why());
    }
    long started = System.currentTimeMillis();
    S reader;
    try {
      reader = opener.open(path);
      if (failed != null) {
        checkBeforeSwap(reader);
      }
    } catch (CorruptStoreException e) {
      refused = remembered(name, path, before, started, e);
      throw new CorruptStoreException(notSwapped(name, old, failed) + e.getMessage(), e);
    } catch (NoSuchFileException e) {
      NoSuchFileException wrapped =
          new NoSuchFileException(e.getFile(), e.getOtherFile(), notSwapped(name, old, failed) + e.getReason());
      wrapped.initCause(e);
      throw wrapped;
    }
    refused = null;
    swapIn(new Version<>(name, reader));
    closer.accept(old.reader());
    return true;
  }

  /** Makes {@code next} current, unless the follower was closed while it was opened: then closes it and throws. */
  private void swapIn(Version<S> next) {
    synchronized (this) {
      if (!closed) {
        current = next;
        return;
      }
    }
    closer.accept(next.reader());
    throw closedException();
  }

  /**
   * What to remember of a version found damaged by an attempt that began at {@code started}, its
   * files then {@code before}: nothing when they changed meanwhile (a directory replaced by a copy
   * that kept its files' times, say), since the damage seen may be a mix of old and new files.
   */
  private static Refused remembered(String name, Path path, VersionFiles before, long started, CorruptStoreException why) {
    VersionFiles after = VersionFiles.readSettled(path, started);
    return after == null || !after.equals(before) ? null : new Refused(name, after, why);
  }

  /** {@link #checkReopened} of {@code reader}; closes it when it fails (nothing else holds it). */
  private void checkBeforeSwap(S reader) {
    try {
      checkReopened.check(reader);
    } catch (RuntimeException | Error e) {
      closer.accept(reader);
      throw e;
    }
  }

  /**
   * Whether {@code old} still serves what its version's directory holds; false when that cannot be
   * read, so that the open that follows says what is wrong.
   */
  private boolean isSameBuild(Version<S> old, String name) throws IOException {
    try {
      return sameBuild.test(old.reader(), root.path(name));
    } catch (NoSuchFileException | CorruptStoreException unreadable) {
      return false;
    }
  }

  private String notSwapped(String name, Version<S> old, RuntimeException failed) {
    return root.directory() + ": version " + name + " cannot be opened, still serving " + old.name()
        + (failed == null ? "" : ", which refuses lookups (" + failed.getMessage() + ")") + ": ";
  }

  /** Closes the version being served (after its lookups in flight); later calls throw {@link StoreClosedException}. */
  synchronized void close() {
    if (!closed) {
      closed = true;
      closer.accept(current.reader());
    }
  }

  /** Whether {@link #close()} was called. */
  boolean isClosed() {
    return closed;
  }

  private void checkOpen() {
    if (closed) {
      throw closedException();
    }
  }

  private StoreClosedException closedException() {
    return new StoreClosedException(root.directory().toString());
  }
}
