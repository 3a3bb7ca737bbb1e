package io.varve.examples;

import io.varve.cli.Arguments;
import io.varve.core.files.FileTrees;
import io.varve.core.shard.ShardManifest;
import io.varve.core.shard.ShardRouter;
import io.varve.examples.spark.KeyValueInput;
import io.varve.examples.spark.LocalSpark;
import io.varve.spark.VarveSpark;
import io.varve.spark.VarveWriteOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code Examples spark-job OUT}: a Spark job in local mode that builds a sharded store at {@code
 * OUT} with {@link VarveSpark#write}, from a real file of this machine or the one given ({@link
 * KeyValueInput}), then says how to serve it ({@link ServeCommand}). Where Spark cannot start (a
 * newer Java: {@link LocalSpark#whyItCannotStart}) it says why and exits 4. Not thread-safe.
 */
@Command(
    name = "spark-job",
    mixinStandardHelpOptions = true,
    usageHelpWidth = 100,
    sortOptions = false,
    header = "A Spark job (local mode) that builds a sharded store from a real file.",
    description = {
      "Reads a word list or a Debian package list (or generates rows) with Spark, one row per key, and writes them as a"
          + " sharded store with VarveSpark.write: one task per shard, _MANIFEST last. 'Examples serve OUT KEY...' reads it."
    })
final class SparkJobCommand implements Callable<Integer> {
  /** The exit code where Spark cannot start in this JVM. */
  static final int SPARK_UNAVAILABLE = 4;

  private static final long DEFAULT_ROWS = 100_000;
  private static final int DEFAULT_SHARDS = 8;
  /** Keys a shell takes as they are; others are printed quoted. */
  private static final Pattern PLAIN_WORD = Pattern.compile("[A-Za-z0-9._:+/@=-]+");

  @ParentCommand Examples examples;

  @Parameters(index = "0", paramLabel = "OUT", description = "the sharded store to write: a directory that does not exist yet")
  String out;

  @Option(
      names = "--input",
      paramLabel = "FILE",
      description = "words, one a line, or a Debian Packages list (*Packages, or apt's *Packages.lz4); default: "
          + "/usr/share/dict/words, else the largest list in /var/lib/apt/lists, else generated rows")
  String input;

  @Option(names = "--rows", paramLabel = "N", description = "how many rows to generate when no file is read (default 100000)")
  Long rows;

  @Option(names = "--shards", paramLabel = "N", description = "shards, one Spark task each (default 8)")
  Long shards;

  @Option(names = "--master", paramLabel = "URL", defaultValue = "local[2]", description = "Spark's master (default local[2]: two task threads in this JVM)")
  String master;

  @Override
  public Integer call() throws IOException {
    PrintStream stdout = examples.out;
    int shardCount = Arguments.inRange("--shards", shards, DEFAULT_SHARDS, 1, ShardRouter.MAX_SHARDS);
    if (input != null && rows != null) {
      throw new IllegalArgumentException("--rows is for generated rows: leave it out with --input");
    }
    if (rows != null && rows < 1) {
      throw new IllegalArgumentException("--rows must be at least 1, got " + rows);
    }
    if (input != null && input.isEmpty()) {
      throw new IllegalArgumentException("--input is empty: give a file, or leave --input out");
    }
    KeyValueInput source = input != null
        ? KeyValueInput.of(Path.of(input))
        : KeyValueInput.findOnThisMachine(rows == null ? DEFAULT_ROWS : rows);
    source.checkReadable();
    Path output = checkOutput(out);
    Optional<String> whyNot = LocalSpark.whyItCannotStart();
    if (whyNot.isPresent()) {
      examples.err.println("Examples spark-job: " + whyNot.get());
      return SPARK_UNAVAILABLE;
    }
    Path scratch = Files.createTempDirectory("varve-spark-job");
    SparkSession spark = null;
    try {
      spark = LocalSpark.start(master, "varve-spark-job");
      stdout.printf("varve spark-job: %s into %,d shards at %s (Spark %s, %s)%n",
          source.description(), shardCount, output, spark.version(), master);
      long start = System.nanoTime();
      Dataset<Row> records = source.rows(spark, scratch);
      ShardManifest manifest =
          VarveSpark.write(records, "key", "value", output.toUri().toString(), VarveWriteOptions.builder(shardCount).build());
      double seconds = (System.nanoTime() - start) / 1e9;
      stdout.printf("  built        %,d records in %,d shards, %,d bytes, in %.1f s (_MANIFEST written last)%n",
          manifest.recordCount(), manifest.shardCount(), manifest.totalBytes(), seconds);
      List<String> samples = records.select("key").limit(3).collectAsList().stream().map(row -> row.getString(0)).toList();
      stdout.printf("  serve it     java -jar examples/target/varve-examples.jar serve %s %s%n", output,
          samples.stream().map(SparkJobCommand::shellWord).collect(Collectors.joining(" ")));
    } finally {
      LocalSpark.stop(spark);
      FileTrees.deleteTree(scratch);
    }
    return 0;
  }

  /**
   * {@code out} as an absolute path, checked before Spark starts: a sharded store is written once,
   * to a new directory (the writer accepts an empty one too), never over another.
   */
  private static Path checkOutput(String out) throws IOException {
    if (out.isEmpty()) {
      throw new IllegalArgumentException("OUT is empty: give the directory of the new sharded store");
    }
    Path output = Path.of(out).toAbsolutePath().normalize();
    if (Files.exists(output)) {
      boolean empty = false;
      if (Files.isDirectory(output)) {
        try (Stream<Path> entries = Files.list(output)) {
          empty = entries.findAny().isEmpty();
        }
      }
      if (!empty) {
        throw new IllegalArgumentException(out + " exists: a sharded store is written once, to a new directory; give another OUT");
      }
    }
    if (output.getParent() != null && !Files.isDirectory(output.getParent())) {
      throw new IllegalArgumentException(out + ": its parent " + output.getParent() + " is not a directory");
    }
    return output;
  }

  private static String shellWord(String key) {
    return PLAIN_WORD.matcher(key).matches() ? key : "'" + key.replace("'", "'\\''") + "'";
  }
}
