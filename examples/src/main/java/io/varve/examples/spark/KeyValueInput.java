package io.varve.examples.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.regexp_extract;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.commons.compress.compressors.lz4.FramedLZ4CompressorInputStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The records of the Spark example, as a {@link Dataset} of string columns {@code key} and {@code
 * value}, one row per key:
 *
 * <ul>
 *   <li>a word list (one word a line, as {@code /usr/share/dict/words}): key the word, value its
 *       line number (the first line it is on, from 1);
 *   <li>a Debian package list ({@code /var/lib/apt/lists/*_Packages}, or apt's LZ4-compressed
 *       {@code *_Packages.lz4}): key the package name, value its version (of a name listed twice,
 *       the greatest version as a string, so that the answer does not depend on Spark's order);
 *   <li>generated rows: key {@code row-N}, value {@code value-N}, for N from 0.
 * </ul>
 *
 * <p>An immutable value; thread-safe.
 */
public final class KeyValueInput {
  /** The word list a Debian or Ubuntu system installs (package {@code wamerican}, among others). */
  public static final Path WORDS = Path.of("/usr/share/dict/words");

  /** Where apt keeps the package lists it downloaded. */
  public static final Path APT_LISTS = Path.of("/var/lib/apt/lists");

  private enum Kind { WORDS, DEBIAN_PACKAGES, GENERATED }

  private final Kind kind;
  private final Path file;
  private final long generatedRows;

  private KeyValueInput(Kind kind, Path file, long generatedRows) {
    this.kind = kind;
    this.file = file;
    this.generatedRows = generatedRows;
  }

  /** {@code file} read as a Debian package list when its name ends in {@code Packages} or {@code Packages.lz4}, else as words. */
  public static KeyValueInput of(Path file) {
    String name = file.getFileName() == null ? "" : file.getFileName().toString();
    boolean packages = name.endsWith("Packages") || name.endsWith("Packages.lz4");
    return new KeyValueInput(packages ? Kind.DEBIAN_PACKAGES : Kind.WORDS, file, 0);
  }

  /** {@code rows} generated rows. */
  public static KeyValueInput generated(long rows) {
    if (rows < 1) {
      throw new IllegalArgumentException("--rows must be at least 1, got " + rows);
    }
    return new KeyValueInput(Kind.GENERATED, null, rows);
  }

  /**
   * A real file of this machine when there is one: {@link #WORDS}, else the largest package list in
   * {@link #APT_LISTS} (uncompressed first); else {@code generatedRows} generated rows.
   */
  public static KeyValueInput findOnThisMachine(long generatedRows) throws IOException {
    if (Files.isReadable(WORDS)) {
      return of(WORDS);
    }
    Optional<Path> packages = largest(APT_LISTS, "_Packages").or(() -> largest(APT_LISTS, "_Packages.lz4"));
    return packages.isPresent() ? of(packages.get()) : generated(generatedRows);
  }

  private static Optional<Path> largest(Path directory, String suffix) {
    if (!Files.isDirectory(directory)) {
      return Optional.empty();
    }
    try (Stream<Path> files = Files.list(directory)) {
      List<Path> lists = files.filter(p -> p.getFileName().toString().endsWith(suffix) && Files.isReadable(p)).toList();
      return lists.stream().max(Comparator.comparingLong(KeyValueInput::size).thenComparing(Comparator.naturalOrder()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return -1;
    }
  }

  /** The file read, or null for generated rows. */
  public Path file() {
    return file;
  }

  /** What the rows are, for people: {@code words of /usr/share/dict/words (key: the word, value: its line number)}. */
  public String description() {
    return switch (kind) {
      case WORDS -> "words of " + file + " (key: the word, value: its line number)";
      case DEBIAN_PACKAGES -> "Debian packages of " + file + " (key: the package, value: its version)";
      case GENERATED -> String.format("%,d generated rows (key: row-N, value: value-N)", generatedRows);
    };
  }

  /**
   * The rows, read by {@code spark}. A compressed package list is first decompressed into {@code
   * scratch} (an existing directory), where Spark can read it.
   *
   * @throws NoSuchFileException when the file does not exist
   */
  public Dataset<Row> rows(SparkSession spark, Path scratch) throws IOException {
    return switch (kind) {
      case WORDS -> words(spark, file);
      case DEBIAN_PACKAGES -> debianPackages(spark, readable(file, scratch));
      case GENERATED -> spark.range(0, generatedRows, 1, 4)
          .select(concat(lit("row-"), col("id").cast("string")).as("key"), concat(lit("value-"), col("id").cast("string")).as("value"));
    };
  }

  private static Dataset<Row> words(SparkSession spark, Path file) throws IOException {
    checkExists(file);
    // Line numbers: zipWithIndex numbers the lines in file order, across partitions.
    JavaRDD<Row> lines = spark.read().textFile(file.toUri().toString()).javaRDD().zipWithIndex()
        .filter(line -> !line._1().isEmpty())
        .map(line -> RowFactory.create(line._1(), line._2() + 1));
    StructType schema = new StructType().add("key", DataTypes.StringType, false).add("line", DataTypes.LongType, false);
    return spark.createDataFrame(lines, schema).groupBy("key").agg(min("line").cast("string").as("value"));
  }

  /** A package list's stanzas (separated by blank lines) as rows: the Package and Version fields. */
  private static Dataset<Row> debianPackages(SparkSession spark, Path file) {
    Dataset<Row> stanzas = spark.read().option("lineSep", "\n\n").text(file.toUri().toString());
    return stanzas
        .select(regexp_extract(col("value"), "(?m)^Package: *(\\S+)", 1).as("key"),
            regexp_extract(col("value"), "(?m)^Version: *(\\S+)", 1).as("value"))
        .where(col("key").notEqual(""))
        .groupBy("key")
        .agg(max("value").as("value"));
  }

  /** {@code file}, or its decompressed copy in {@code scratch} when apt compressed it (LZ4 frames). */
  private static Path readable(Path file, Path scratch) throws IOException {
    checkExists(file);
    if (!file.getFileName().toString().endsWith(".lz4")) {
      return file;
    }
    Path copy = scratch.resolve(file.getFileName().toString().replaceAll("\\.lz4$", ""));
    try (InputStream in = new FramedLZ4CompressorInputStream(new BufferedInputStream(Files.newInputStream(file)), true)) {
      Files.copy(in, copy);
    }
    return copy;
  }

  /**
   * Fails unless the file to read exists and is a file (generated rows: nothing to check), so that a
   * wrong path is reported before Spark starts.
   *
   * @throws NoSuchFileException when it does not exist
   * @throws IllegalArgumentException when it is a directory
   */
  public void checkReadable() throws IOException {
    if (file != null) {
      checkExists(file);
    }
  }

  private static void checkExists(Path file) throws IOException {
    if (Files.isDirectory(file)) {
      throw new IllegalArgumentException(file + " is a directory: give a file of words or a Debian Packages list");
    }
    if (!Files.isRegularFile(file)) {
      throw new NoSuchFileException(file.toString(), null, "no such input file");
    }
  }
}
