package io.varve.examples;

import io.varve.cli.Varve;
import io.varve.examples.quickstart.Quickstart;
import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Runs the library's examples: {@code quickstart} (the README's), {@code dedup} (the BufferHash
 * paper's dedup run over real files), {@code index-demo} (an ECT index alone over generated
 * hashes), {@code spark-job} (a Spark job in local mode that builds a sharded store from a real
 * file) and {@code serve} (the serving host's side: the sharded store opened, keys looked up). The {@code varve} command itself is the {@code cli/} module; the examples parse their
 * arguments with picocli as it does, and answer mistakes and failures as it does ({@link
 * Varve#execute}).
 *
 * <pre>
 * ./mvnw -q -B -DskipTests install
 * java -jar examples/target/varve-examples.jar quickstart
 * </pre>
 *
 * <p>Exit codes: 0 success, 1 an absent key or a damaged store ({@code serve}), 2 bad usage or a
 * missing file, 3 an I/O error, 4 Spark cannot start on this Java ({@code spark-job}). Not meant
 * for concurrent use: {@link #main} runs one example and exits.
 */
@Command(
    name = "Examples",
    mixinStandardHelpOptions = true,
    versionProvider = Varve.Version.class,
    usageHelpWidth = 100,
    synopsisSubcommandLabel = "EXAMPLE",
    description = "Runs an example of the Varve library.",
    subcommands = {
      Examples.QuickstartCommand.class,
      IndexDemo.class,
      DedupCommand.class,
      SparkJobCommand.class,
      ServeCommand.class,
      CommandLine.HelpCommand.class
    },
    footer = {
      "",
      "'Examples EXAMPLE --help' describes an example's options.",
      "",
      "Exit codes: 0 success, 1 an absent key or a damaged store (serve), 2 bad usage or a missing file,",
      "3 an I/O error, 4 Spark cannot start on this Java (spark-job)"
    })
public final class Examples implements Callable<Integer> {
  final PrintStream out;
  final PrintStream err;

  @Spec CommandSpec spec;

  private Examples(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs an example; returns the process exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    return Varve.execute(new CommandLine(new Examples(out, err)), args, out, err);
  }

  /** {@code Examples} without an example: the usage, on stderr. */
  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "missing EXAMPLE");
  }

  /** {@code Examples quickstart [DIR]}: the README's quickstart ({@link Quickstart}). */
  @Command(
      name = "quickstart",
      mixinStandardHelpOptions = true,
      usageHelpWidth = 100,
      description = "The README's quickstart: builds a store, serves lookups, and the same with typed keys and values.")
  static final class QuickstartCommand implements Callable<Integer> {
    @Parameters(arity = "0..1", paramLabel = "DIR", description = "where the stores go: a directory that exists (default: a new temporary directory)")
    String dir;

    @Override
    public Integer call() throws IOException {
      Quickstart.main(dir == null ? new String[0] : new String[] {dir});
      return 0;
    }
  }
}
