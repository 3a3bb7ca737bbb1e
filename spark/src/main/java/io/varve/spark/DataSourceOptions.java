package io.varve.spark;

import io.varve.builder.DuplicatePolicy;
import io.varve.core.store.KeyMode;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.network.util.JavaUtils;

/**
 * The options of {@code format("varve")}, read from Spark's string map: where to write, which
 * columns hold keys and values, and the {@link VarveWriteOptions}. Option names are
 * case-insensitive, as Spark's are; an unknown name is refused (a misspelt option would otherwise
 * be ignored silently). Immutable; thread-safe.
 */
record DataSourceOptions(String path, String keyColumn, String valueColumn, VarveWriteOptions writeOptions) {
  static final String PATH = "path";
  static final String SHARDS = "shards";
  static final String KEY_COLUMN = "keycolumn";
  static final String VALUE_COLUMN = "valuecolumn";
  static final String SEED = "seed";
  static final String DUPLICATES = "duplicates";
  static final String NULL_VALUES_AS_EMPTY = "nullvaluesasempty";
  static final String MEMORY_BUDGET = "memorybudget";
  static final String KEY_MODE = "keymode";
  static final String LOCAL_DIRECTORY = "localdirectory";
  static final String SHARD_FORMAT = "shardformat";

  private static final Set<String> KNOWN =
      Set.of(PATH, SHARDS, KEY_COLUMN, VALUE_COLUMN, SEED, DUPLICATES, NULL_VALUES_AS_EMPTY, MEMORY_BUDGET, KEY_MODE, LOCAL_DIRECTORY,
          SHARD_FORMAT);

  /**
   * Reads {@code options} (Spark's, any case).
   *
   * @throws IllegalArgumentException naming the option that is missing, unknown or malformed
   */
  static DataSourceOptions parse(Map<String, String> options) {
    Map<String, String> lower = new TreeMap<>();
    for (Map.Entry<String, String> option : options.entrySet()) {
      String name = option.getKey().toLowerCase(Locale.ROOT);
      if (!KNOWN.contains(name)) {
        throw new IllegalArgumentException("format(\"varve\") has no option '" + option.getKey() + "'; its options are "
            + "shards, keyColumn, valueColumn, seed, duplicates, nullValuesAsEmpty, memoryBudget, keyMode, localDirectory, "
            + "shardFormat "
            + "and the path given to save()");
      }
      lower.put(name, option.getValue());
    }
    String path = required(lower, PATH, "save(path): the output path");
    String shards = required(lower, SHARDS, "option(\"shards\", N): the number of shards, 1 to 65536");
    VarveWriteOptions.Builder builder = VarveWriteOptions.builder(parseInt(SHARDS, shards));
    if (lower.containsKey(SEED)) {
      builder.seed(parseLong(SEED, lower.get(SEED)));
    }
    if (lower.containsKey(DUPLICATES)) {
      builder.duplicates(duplicates(lower.get(DUPLICATES)));
    }
    if (lower.containsKey(NULL_VALUES_AS_EMPTY)) {
      builder.nullValuesAsEmpty(bool(NULL_VALUES_AS_EMPTY, lower.get(NULL_VALUES_AS_EMPTY)));
    }
    if (lower.containsKey(MEMORY_BUDGET)) {
      builder.memoryBudget(bytes(MEMORY_BUDGET, lower.get(MEMORY_BUDGET)));
    }
    if (lower.containsKey(KEY_MODE)) {
      builder.keyMode(keyMode(lower.get(KEY_MODE)));
    }
    if (lower.containsKey(SHARD_FORMAT)) {
      builder.shardFormat(shardFormat(lower.get(SHARD_FORMAT)));
    }
    if (lower.containsKey(LOCAL_DIRECTORY)) {
      builder.localDirectory(lower.get(LOCAL_DIRECTORY));
    }
    return new DataSourceOptions(path, lower.getOrDefault(KEY_COLUMN, "key"), lower.getOrDefault(VALUE_COLUMN, "value"), builder.build());
  }

  private static String required(Map<String, String> options, String name, String what) {
    String value = options.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("format(\"varve\") needs " + what);
    }
    return value;
  }

  private static int parseInt(String name, String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw malformed(name, text, "an integer");
    }
  }

  private static long parseLong(String name, String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw malformed(name, text, "an integer");
    }
  }

  private static boolean bool(String name, String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw malformed(name, text, "true or false");
    };
  }

  /** A size as Spark's own options take it: {@code 134217728}, {@code 128m}, {@code 1g}. */
  private static long bytes(String name, String text) {
    try {
      return JavaUtils.byteStringAsBytes(text.trim());
    } catch (NumberFormatException e) {
      throw malformed(name, text, "a size such as 64m or 1g");
    }
  }

  private static DuplicatePolicy duplicates(String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "fail" -> DuplicatePolicy.FAIL;
      case "last_wins", "last-wins", "lastwins" -> DuplicatePolicy.LAST_WINS;
      default -> throw malformed(DUPLICATES, text, "fail or last_wins");
    };
  }

  private static ShardFormat shardFormat(String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "directory" -> ShardFormat.DIRECTORY;
      case "artifact" -> ShardFormat.ARTIFACT;
      default -> throw malformed(SHARD_FORMAT, text, "directory or artifact");
    };
  }

  /** {@code full}, {@code none} or {@code signature:K} (K from 1 to 64), as the command's {@code --key-mode}. */
  private static KeyMode keyMode(String text) {
    String mode = text.trim().toLowerCase(Locale.ROOT);
    if (mode.equals("full")) {
      return KeyMode.FULL;
    }
    if (mode.equals("none")) {
      return KeyMode.NONE;
    }
    if (mode.startsWith("signature:")) {
      try {
        return KeyMode.signature(Integer.parseInt(mode.substring("signature:".length())));
      } catch (IllegalArgumentException e) { // NumberFormatException too
        throw malformed(KEY_MODE, text, "signature:K with K from 1 to 64");
      }
    }
    throw malformed(KEY_MODE, text, "full, none or signature:K (K from 1 to 64)");
  }

  private static IllegalArgumentException malformed(String name, String text, String expected) {
    return new IllegalArgumentException("format(\"varve\") option " + name + " expects " + expected + ", got '" + text + "'");
  }
}
