package io.varve.examples;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Runs the library's examples: {@code quickstart} (the README's), {@code dedup} (the BufferHash
 * paper's dedup run over real files) and {@code index-demo} (an ECT index alone over generated
 * hashes). The {@code varve} command itself is the {@code cli/} module.
 *
 * <pre>
 * ./mvnw -q -B -DskipTests install
 * java -jar examples/target/varve-examples.jar quickstart
 * </pre>
 *
 * <p>Exit codes: 0 success, 2 bad usage or a missing file, 3 an I/O error. Not meant for
 * concurrent use: {@link #main} runs one example and exits.
 */
public final class Examples {
  private Examples() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs an example; returns the process exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0 || args[0].equals("help") || args[0].equals("--help")) {
      (args.length == 0 ? err : out).println(usage());
      return args.length == 0 ? 2 : 0;
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    try {
      switch (args[0]) {
        case "quickstart":
          io.varve.examples.quickstart.Quickstart.main(rest);
          return 0;
        case "dedup":
          return DedupCommand.run(rest, out, err);
        case "index-demo":
          return IndexDemo.run(Options.parse(rest, IndexDemo.OPTIONS), out);
        default:
          err.println("examples: unknown example '" + args[0] + "'\n\n" + usage());
          return 2;
      }
    } catch (IllegalArgumentException e) {
      err.println(args[0] + ": " + e.getMessage());
      return 2;
    } catch (NoSuchFileException e) {
      err.println(args[0] + ": no such file or directory: " + e.getMessage());
      return 2;
    } catch (IOException | UncheckedIOException e) {
      err.println(args[0] + ": I/O error: " + e.getMessage());
      return 3;
    }
  }

  static String usage() {
    return String.join(
        "\n",
        "usage: Examples EXAMPLE [OPTIONS]",
        "",
        "  quickstart [DIR]         the README's quickstart: build a store, serve lookups, a typed store too (under DIR,",
        "                           which must exist; default a new temporary directory)",
        "  index-demo   build an ECT index alone over generated hashes, print bits/key and ns/lookup",
        "         --keys N          number of keys (default 10000000)",
        "         --bucket-size G   average keys per virtual bucket (default 256)",
        "         --huffman-max H   largest subtrie coded with Huffman codes (default 64)",
        "         --skip-levels L   trie levels that store skip lengths (default 3; 0 = the paper's tries)",
        "         --lookups N       member and absent lookups to time (default 1000000)",
        "         --seed S          key generator seed (default 42)",
        "  dedup [PATH...]          the dedup / WAN-optimizer run of the BufferHash paper: cut the files (every",
        "                           file under each PATH; default the jars under ~/.m2/repository) into",
        "                           chunks by content (FastCDC), look each chunk's SHA-1 up in an index and",
        "                           record it when new; print bytes seen, redundancy, chunks/s, MB/s, index RAM",
        "         --min SIZE --avg SIZE --max SIZE   chunk sizes (default 2k, 8k, 64k; avg a power of two)",
        "         --index bufferhash|hashmap   the fingerprint index: BufferHash on disk (default), or a HashMap",
        "         --log SIZE        BufferHash's log on disk (default: 64 bytes per expected chunk, so that",
        "                           nothing is evicted); when full, its oldest fingerprints are forgotten",
        "         --memory SIZE     BufferHash's RAM (default: enough for 0.01 wasted reads per lookup)",
        "         --dir DIR         keep the index in DIR (reopened by the next run); default: a temporary one",
        "         --check           also run a HashMap index and count the chunks the two disagree on");
  }

  /** Deletes {@code root} and everything under it, if it exists. */
  static void deleteTree(Path root) throws IOException {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }
}
