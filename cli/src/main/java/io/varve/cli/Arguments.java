package io.varve.cli;

import io.varve.builder.BuildOptions;
import io.varve.builder.StoreBuilder;
import io.varve.core.artifact.StoreArtifact;
import io.varve.core.shard.ShardManifest;
import io.varve.core.store.KeyMode;
import io.varve.core.store.StoreFile;
import io.varve.reader.ShardedStore;
import io.varve.reader.Store;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Checks of the commands' file arguments before any work, so that a wrong path is reported as one
 * (exit 2) rather than as an I/O error halfway, and the values that options share ({@code
 * --memory}, {@code --key-mode}, numbers in a range; the last public for the examples' options).
 * Stateless; thread-safe.
 */
public final class Arguments {
  /** The usage of the store parameter of the commands that read one (get, stats, verify, dump). */
  static final String STORE_PARAMETER = "the store: a directory, a .varve artifact, or a sharded store's root (with its _MANIFEST)";

  /** The accepted forms of {@code --key-mode}, for usage messages. */
  static final String KEY_MODES = "full, none or signature:K with K from 1 to 64";

  private static final Pattern SIGNATURE = Pattern.compile("signature:([0-9]{1,2})");

  /**
   * What a sharded build leaves in its root before its manifest: shards as the builders name them
   * (directories or artifacts), and the Spark writer's attempt directory.
   */
  private static final Pattern UNFINISHED_SHARDED_ENTRY = Pattern.compile("shard-[0-9]{5}(\\.varve)?|_temporary");

  private Arguments() {}

  /**
   * Fails unless {@code input} is {@code -} (stdin) or a file that exists, before any work: a
   * missing or misnamed input is reported as such, not as an I/O error halfway.
   */
  static void checkInput(String input) throws IOException {
    if (input.equals("-")) {
      return;
    }
    if (input.isEmpty()) {
      throw new IllegalArgumentException("the input file name is empty");
    }
    Path path = Path.of(input);
    if (Files.isDirectory(path)) {
      throw new IllegalArgumentException(input + " is a directory: give a TSV, CSV or JSON-lines file (or - for stdin)");
    }
    if (!Files.exists(path)) {
      throw new NoSuchFileException(input);
    }
  }

  /**
   * Fails if {@code out} is empty (it would be the working directory), or cannot become a store
   * directory because its parent is a file (the library would say the parent does not exist,
   * which reads as wrong when it plainly does). The other cases, an {@code out} that exists or a
   * parent that does not, the library reports itself.
   */
  static Path checkOutput(String out) {
    if (out.isEmpty()) {
      throw new IllegalArgumentException("--out is empty: give the directory of the new store");
    }
    // Picocli takes an unknown option after --out for its value: "--out --typo" would name a directory.
    if (out.startsWith("-")) {
      throw new IllegalArgumentException(
          "--out " + out + ": a directory name that starts with - is more likely a misspelt option; write --out ./" + out
              + " if it is the directory");
    }
    Path parent = Path.of(out).toAbsolutePath().getParent();
    if (parent != null && Files.exists(parent) && !Files.isDirectory(parent)) {
      throw new IllegalArgumentException("--out " + out + ": " + parent + " is a file, not a directory");
    }
    return Path.of(out);
  }

  /** Fails unless {@code temp} is null (not given) or an existing directory. */
  static void checkTemporaryDirectory(String temp) throws IOException {
    if (temp == null) {
      return;
    }
    Path path = Path.of(temp);
    if (!Files.exists(path)) {
      throw new NoSuchFileException(temp, null, "the --temp directory does not exist: create it, or leave --temp out");
    }
    if (!Files.isDirectory(path)) {
      throw new IllegalArgumentException("--temp " + temp + " is not a directory");
    }
  }

  /**
   * {@code dir} as a path, once it is known to be a directory with a meta file: a wrong path is
   * reported as one (exit 2), before anything tries to read a store there. A store directory whose
   * other files are missing is left to {@code Store.open}: that store is damaged (exit 1).
   */
  static Path storeDirectory(String dir) throws IOException {
    if (dir.isEmpty()) {
      throw new IllegalArgumentException("the store directory name is empty");
    }
    Path path = Path.of(dir);
    if (!Files.exists(path)) {
      throw new NoSuchFileException(dir, null, "not a store directory");
    }
    if (!Files.isDirectory(path)) {
      throw new IllegalArgumentException(dir + " is a file, not a store directory (nor a " + StoreArtifact.SUFFIX + " artifact)");
    }
    if (!Files.exists(path.resolve(StoreFile.META.fileName()))) {
      if (Files.exists(path.resolve(ShardManifest.FILE_NAME))) {
        throw new IllegalArgumentException(dir + " is a sharded store (it has a " + ShardManifest.FILE_NAME
            + "), not one store: give one of its shards, such as " + path.resolve(ShardManifest.shardName(0)));
      }
      checkNotAnUnfinishedShardedStore(dir, path);
      throw new IllegalArgumentException(dir + " is not a varve store: it has no " + StoreFile.META.fileName() + " file");
    }
    return path;
  }

  /**
   * Fails, saying so, if the directory {@code path} (which has no meta file) holds what a sharded
   * build leaves before it writes its manifest: readers refuse such a root, as the library does
   * (not a store yet, exit 2), rather than call it a directory of nothing.
   */
  private static void checkNotAnUnfinishedShardedStore(String dir, Path path) throws IOException {
    List<String> found;
    try (Stream<Path> entries = Files.list(path)) {
      found = entries.map(p -> p.getFileName().toString()).filter(n -> UNFINISHED_SHARDED_ENTRY.matcher(n).matches()).sorted().toList();
    }
    if (!found.isEmpty()) {
      String shown = found.size() <= 3 ? String.join(", ", found) : String.join(", ", found.subList(0, 3)) + " and " + (found.size() - 3) + " more";
      throw new IllegalArgumentException(dir + " holds " + shown + " but no " + ShardManifest.FILE_NAME + ": a sharded build that did not"
          + " finish (or a copy without its " + ShardManifest.FILE_NAME + "); rebuild it, or copy it again whole");
    }
  }

  /**
   * Whether {@code dir} is the root of a sharded store: a directory with a {@value
   * ShardManifest#FILE_NAME} and no meta file (a single store's directory has one).
   */
  static boolean isShardedRoot(String dir) {
    if (dir.isEmpty()) {
      return false;
    }
    Path path = Path.of(dir);
    return Files.isDirectory(path) && !Files.exists(path.resolve(StoreFile.META.fileName()))
        && Files.exists(path.resolve(ShardManifest.FILE_NAME));
  }

  /**
   * Opens the sharded store rooted at {@code dir} ({@link #isShardedRoot}), every shard checked
   * against the manifest. Its shards open with their index: {@code --no-index} is for one store,
   * which a shard is (bad usage, exit 2, naming one).
   */
  static ShardedStore openSharded(String dir, boolean withoutIndex) throws IOException {
    if (withoutIndex) {
      throw new IllegalArgumentException("--no-index opens one store, and " + dir + " is a sharded store: give one of its shards"
          + " instead, such as " + Path.of(dir).resolve(ShardManifest.shardName(0)));
    }
    return ShardedStore.open(Path.of(dir));
  }

  /**
   * Whether {@code dir} names a file of an artifact's name ({@value StoreArtifact#SUFFIX}): opened as
   * one, so that a damaged artifact is reported as damaged (exit 1), not as a wrong path.
   */
  private static boolean isArtifact(String dir) {
    Path path = Path.of(dir);
    return StoreArtifact.isArtifactName(path) && Files.isRegularFile(path);
  }

  /**
   * {@code dir} as a path to read a store from: a {@value StoreArtifact#SUFFIX} artifact file as it
   * is (checked as it is read), else a directory checked as {@link #storeDirectory} does.
   */
  static Path storeDirectoryOrArtifact(String dir) throws IOException {
    return isArtifact(dir) ? Path.of(dir) : storeDirectory(dir);
  }

  /**
   * Opens the store (a directory, or a {@value StoreArtifact#SUFFIX} artifact read in place),
   * without its index on request. A store without full keys cannot be opened so:
   * the request is at fault, not the store, so it is reported as bad usage (exit 2).
   */
  static Store openStore(String dir, boolean withoutIndex) throws IOException {
    Path path = isArtifact(dir) ? Path.of(dir) : storeDirectory(dir);
    try {
      return withoutIndex ? Store.openWithoutIndex(path) : Store.open(path);
    } catch (UnsupportedOperationException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /**
   * {@code --memory}: the sort's memory budget, which lives on the Java heap. A budget given that
   * leaves the heap less than a quarter for everything else would end in an OutOfMemoryError
   * after minutes of work on a large input (a build in a 128 MiB heap fails at 112 MiB and passes
   * at 96), so it is refused at once. Not given (null): the library's default, fine for small
   * inputs whatever the heap.
   */
  static long memoryBudget(Long given) {
    if (given == null) {
      return BuildOptions.defaultMemoryBudget();
    }
    long budget = given;
    if (budget < StoreBuilder.MIN_MEMORY_BUDGET) {
      throw new IllegalArgumentException(
          "--memory must be at least " + ByteSizes.show(StoreBuilder.MIN_MEMORY_BUDGET) + ", got " + ByteSizes.show(budget));
    }
    long heap = Runtime.getRuntime().maxMemory();
    if (heap != Long.MAX_VALUE && budget > heap / 4 * 3) {
      throw new IllegalArgumentException(
          "--memory " + ByteSizes.show(budget) + " leaves too little of this JVM's " + (heap >> 20) + " MiB heap for the rest"
              + " of the work: give at most " + (heap / 4 * 3 >> 20) + "m, or a larger heap (java -Xmx...)");
    }
    return budget;
  }

  /**
   * {@code --key-mode}: {@code full}, {@code none} or {@code signature:K} (K from 1 to 64), or null
   * when not given, which leaves the choice to the library (full keys for a build, the old stores'
   * mode for a merge). Nothing else is accepted, not even other spellings: a mode that throws keys
   * away cannot be undone, so a typo should not pick one.
   */
  static KeyMode keyMode(String text) {
    if (text == null) {
      return null;
    }
    switch (text) {
      case "full":
        return KeyMode.FULL;
      case "none":
        return KeyMode.NONE;
      default:
        Matcher signature = SIGNATURE.matcher(text);
        if (signature.matches()) {
          int bits = Integer.parseInt(signature.group(1));
          if (bits >= 1 && bits <= 64) {
            return KeyMode.signature(bits);
          }
        }
        throw new IllegalArgumentException("--key-mode expects " + KEY_MODES + ", got '" + text + "'");
    }
  }

  /**
   * {@code --block-size}: a size such as {@code 4096} or {@code 4k}, or {@code dense} when not
   * given. Whether the size suits the store is the library's to say, in its own words; only sizes
   * that could be mistaken for "dense" (0) or that are no size at all (negative) are refused here.
   */
  static int blockBytes(Long given, int dense) {
    if (given == null) {
      return dense;
    }
    if (given <= 0 || given > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("--block-size must be a power of two from 512 bytes to 1m, got " + given);
    }
    return (int) (long) given;
  }

  /**
   * {@code value} of {@code option} (or {@code defaultValue} when not given), checked to lie in
   * [min, max]: the option's value is a {@code Long}, so that a value past an int is named as given.
   */
  public static int inRange(String option, Long value, int defaultValue, int min, int max) {
    if (value == null) {
      return defaultValue;
    }
    if (value < min || value > max) {
      throw new IllegalArgumentException(option + " must be in [" + min + ", " + max + "], got " + value);
    }
    return value.intValue();
  }
}
