package io.varve.examples;

import java.io.PrintStream;
import java.util.Arrays;

/**
 * The {@code varve} command. Run {@code java -jar examples/target/varve.jar help} for usage.
 *
 * <p>Commands so far: {@code demo} (build an index over generated keys, query it, print its
 * statistics and timings). The store commands ({@code build}, {@code get}, {@code stats}, ...)
 * arrive with the store format.
 *
 * <p>Not meant for concurrent use: {@link #main} runs one command and exits.
 */
public final class Varve {
  private Varve() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs a command; returns the process exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0 || args[0].equals("help") || args[0].equals("--help")) {
      out.println(usage());
      return args.length == 0 ? 2 : 0;
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    try {
      switch (args[0]) {
        case "demo":
          return IndexDemo.run(Options.parse(rest), out);
        default:
          err.println("varve: unknown command '" + args[0] + "'\n\n" + usage());
          return 2;
      }
    } catch (IllegalArgumentException e) {
      err.println("varve " + args[0] + ": " + e.getMessage());
      return 2;
    }
  }

  static String usage() {
    return String.join(
        "\n",
        "usage: varve COMMAND [OPTIONS]",
        "",
        "commands:",
        "  demo   build an ECT index over generated keys, look every sampled key up, print stats",
        "         --keys N          number of keys (default 10000000)",
        "         --bucket-size G   average keys per virtual bucket (default 256)",
        "         --huffman-max H   largest subtrie coded with Huffman codes (default 64)",
        "         --skip-levels L   trie levels that store skip lengths (default 3; 0 = the paper's tries)",
        "         --lookups N       member and absent lookups to time (default 1000000)",
        "         --seed S          key generator seed (default 42)",
        "  help   this text");
  }
}
