package io.varve.examples;

import io.varve.reader.ShardedStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code Examples serve DIR KEY...}: the serving side of the Spark example. Opens the sharded store
 * {@code DIR} with {@link ShardedStore#open} (every shard checked against the manifest) and looks
 * the keys up at once ({@link ShardedStore#getAll}: grouped by shard, answered in order), printing
 * {@code key<TAB>value<TAB>(shard N)} per key found; an absent key is said on stderr and the exit
 * code is 1. Not thread-safe.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    usageHelpWidth = 100,
    header = "Opens a sharded store (the Spark job's) and looks keys up.",
    description = "Opens the sharded store DIR as a serving host would and prints key<TAB>value<TAB>(shard N) for each key"
        + " found; an absent key prints 'Examples serve: KEY: not found' on stderr, and the exit code is 1.")
final class ServeCommand implements Callable<Integer> {
  @ParentCommand Examples examples;

  @Parameters(index = "0", paramLabel = "DIR", description = "the sharded store: the directory holding its _MANIFEST")
  String dir;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "KEY", description = "the keys to look up (UTF-8)")
  List<String> keys;

  @Override
  public Integer call() throws IOException {
    long start = System.nanoTime();
    try (ShardedStore store = ShardedStore.open(Path.of(dir))) {
      examples.out.printf("opened %s: %,d records in %,d shards (%.2f s)%n", dir, store.size(), store.shardCount(),
          (System.nanoTime() - start) / 1e9);
      byte[][] keyBytes = new byte[keys.size()][];
      for (int i = 0; i < keyBytes.length; i++) {
        keyBytes[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
      }
      byte[][] values = new byte[keyBytes.length][];
      store.getAll(keyBytes, values);
      int status = 0;
      for (int i = 0; i < values.length; i++) {
        if (values[i] == null) {
          examples.err.println("Examples serve: " + keys.get(i) + ": not found");
          status = 1;
        } else {
          examples.out.printf("%s\t%s\t(shard %d)%n", keys.get(i), new String(values[i], StandardCharsets.UTF_8),
              store.shardOf(keyBytes[i]));
        }
      }
      return status;
    }
  }
}
