package io.varve.cli;

import io.varve.core.format.CorruptStoreException;
import io.varve.cli.input.InputFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code varve} command: {@code java -jar cli/target/varve.jar --help} for usage. Each
 * subcommand is a class of this package; this one runs them and turns what they throw into a
 * message and an exit code ({@link #EXIT_CODES}).
 *
 * <p>Not meant for concurrent use: {@link #main} runs one command and exits.
 */
@Command(
    name = "varve",
    mixinStandardHelpOptions = true,
    versionProvider = Varve.Version.class,
    usageHelpWidth = 100,
    synopsisSubcommandLabel = "COMMAND",
    description = "Builds, merges, re-indexes and reads Varve stores: immutable key-value stores built in batch.",
    subcommands = {
      BuildCommand.class,
      MergeCommand.class,
      ReindexCommand.class,
      PackCommand.class,
      GetCommand.class,
      StatsCommand.class,
      VerifyCommand.class,
      DumpCommand.class,
      DemoCommand.class,
      CommandLine.HelpCommand.class
    },
    footer = {
      "",
      "'varve COMMAND --help' describes a command's options. -- ends the options: the arguments",
      "after it are positional even if they start with -.",
      "",
      "Exit codes:",
      "  0  success",
      "  1  a key is absent (get), or a store is damaged (every command that reads one)",
      "  2  bad usage (an unknown option, a missing argument, a bad value) or bad input (a file that",
      "     does not exist or may not be read, input that is malformed or not UTF-8, a duplicate key)",
      "  3  an I/O error, or the heap ran out"
    })
public final class Varve implements Callable<Integer> {
  /** The exit codes, as the usage footer gives them. */
  static final int OK = 0;

  static final int ABSENT_OR_DAMAGED = 1;
  static final int BAD_USAGE_OR_INPUT = 2;
  static final int IO_ERROR = 3;

  /** The exit codes' table, for tests that check the usage against it. */
  static final List<Integer> EXIT_CODES = List.of(OK, ABSENT_OR_DAMAGED, BAD_USAGE_OR_INPUT, IO_ERROR);

  /** What to do about a damaged store, after the message that names the damage. */
  static final String DAMAGED_HINT = "; rebuild the store, or restore it from a copy";

  final InputStream stdin;
  final PrintStream out;
  final PrintStream err;

  @Spec CommandSpec spec;

  private Varve(InputStream stdin, PrintStream out, PrintStream err) {
    this.stdin = stdin;
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    System.exit(run(args, System.in, System.out, System.err));
  }

  /** Runs a command; returns the process exit code. */
  static int run(String[] args, InputStream stdin, PrintStream out, PrintStream err) {
    try {
      return execute(commandLine(new Varve(stdin, out, err)), args, out, err);
    } catch (OutOfMemoryError e) {
      // Past this point the heap is free again (the builder's buffers are unreachable): say what to change.
      PrintWriter errWriter = writer(err);
      errWriter.println("varve" + (args.length > 0 ? " " + args[0] : "") + ": out of memory (the JVM's heap is "
          + (Runtime.getRuntime().maxMemory() >> 20) + " MiB): give a smaller --memory, or a larger heap (java -Xmx...)");
      errWriter.flush();
      err.flush();
      return IO_ERROR;
    }
  }

  /**
   * Runs {@code commandLine} as varve runs its commands: its output in UTF-8 on {@code out} and
   * {@code err}, a mistake in the arguments or what a command throws turned into a message and an
   * exit code ({@link #EXIT_CODES}). For varve, and for other programs on picocli (the examples),
   * which then answer as varve does.
   */
  public static int execute(CommandLine commandLine, String[] args, PrintStream out, PrintStream err) {
    PrintWriter outWriter = writer(out);
    PrintWriter errWriter = writer(err);
    commandLine.setOut(outWriter);
    commandLine.setErr(errWriter);
    commandLine.setParameterExceptionHandler(Varve::usageError);
    commandLine.setExecutionExceptionHandler((e, command, parsed) -> failure(e, command));
    try {
      return commandLine.execute(args);
    } finally {
      outWriter.flush();
      errWriter.flush();
      out.flush();
      err.flush();
    }
  }

  private static PrintWriter writer(PrintStream stream) {
    return new PrintWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8), true);
  }

  /** The command line of {@code varve}, for usage text (tests compare it with the README). */
  static CommandLine commandLine() {
    return commandLine(new Varve(InputStream.nullInputStream(), System.out, System.err));
  }

  private static CommandLine commandLine(Varve varve) {
    CommandLine commandLine = new CommandLine(varve);
    // Options after positional arguments, as in build INPUT --out DIR, are options.
    commandLine.setPosixClusteredShortOptionsAllowed(false);
    return commandLine;
  }

  /** {@code varve} without a command: the usage, on stderr. */
  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "missing COMMAND");
  }

  /**
   * A mistake in the arguments: says what it is, prefixed by the command ({@code varve build:}),
   * and where to read the options; exit 2. {@code --help} anywhere before {@code --} wins over
   * the mistake, as one asking for help is likely to have made one.
   */
  private static int usageError(ParameterException e, String[] args) {
    CommandLine command = e.getCommandLine();
    for (String arg : args) {
      if (arg.equals("--")) {
        break;
      }
      if (arg.equals("--help") || arg.equals("-h")) {
        command.usage(command.getOut());
        return OK;
      }
    }
    PrintWriter err = command.getErr();
    String name = command.getCommandSpec().qualifiedName();
    if (e instanceof UnmatchedArgumentException unmatched && command.getParent() == null
        && !unmatched.getUnmatched().isEmpty() && command.getParseResult().subcommand() == null) {
      // "varve: unknown command 'x'": the word is the one the usage gives the subcommand (COMMAND).
      String what = command.getCommandSpec().usageMessage().synopsisSubcommandLabel().toLowerCase(Locale.ROOT);
      err.println(name + ": unknown " + what + " '" + unmatched.getUnmatched().get(0) + "'");
      err.println();
      command.usage(err);
      return BAD_USAGE_OR_INPUT;
    }
    err.println(name + ": " + describe(e));
    if (command.getParent() == null) {
      err.println();
      command.usage(err);
    } else {
      err.println("'" + name + " --help' describes its options");
    }
    return BAD_USAGE_OR_INPUT;
  }

  /** Picocli's words for a mistake, with the nearest option for an unknown one. */
  private static String describe(ParameterException e) {
    if (e instanceof UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
      String first = unmatched.getUnmatched().get(0);
      if (first.startsWith("-") && first.length() > 1) {
        String name = first.contains("=") ? first.substring(0, first.indexOf('=')) : first;
        List<String> suggestions = unmatched.getSuggestions();
        return "unknown option " + name + (suggestions.isEmpty() ? "" : " (did you mean " + suggestions.get(0) + "?)");
      }
      return "unexpected argument '" + first + "'";
    }
    return e.getMessage();
  }

  /** What a command threw, as a message on stderr and an exit code. */
  private static int failure(Exception e, CommandLine command) {
    PrintWriter err = command.getErr();
    String name = command.getCommandSpec().qualifiedName();
    if (CloseOnExit.closedAtExit()) {
      // Ctrl-C or kill: the work was closed under the command, whatever it failed with.
      err.println(name + ": stopped, the process is ending: nothing was published");
      return IO_ERROR;
    }
    if (e instanceof InputError input) {
      err.println(name + ": " + input.getMessage());
      return BAD_USAGE_OR_INPUT;
    }
    if (e instanceof InputFormatException input) {
      err.println(name + ": " + input.getMessage());
      return BAD_USAGE_OR_INPUT;
    }
    if (e instanceof IllegalArgumentException) {
      err.println(name + ": " + e.getMessage());
      return BAD_USAGE_OR_INPUT;
    }
    if (e instanceof CorruptStoreException) {
      err.println(name + ": damaged store: " + e.getMessage() + DAMAGED_HINT);
      return ABSENT_OR_DAMAGED;
    }
    if (e instanceof NoSuchFileException) {
      err.println(name + ": no such file or directory: " + e.getMessage());
      return BAD_USAGE_OR_INPUT;
    }
    if (e instanceof FileAlreadyExistsException exists) {
      // The library's usual reason ("the store directory already exists") says nothing more, and is
      // wrong when a file is in the way; a rarer one (it appeared during the build) is worth showing.
      String reason =
          exists.getReason() == null || exists.getReason().endsWith("already exists") ? "" : " (" + exists.getReason() + ")";
      err.println(name + ": " + exists.getFile() + " already exists" + reason + ": remove it, or give another --out");
      return BAD_USAGE_OR_INPUT;
    }
    if (e instanceof AccessDeniedException denied) {
      // The file is there but this user may not read or write it: the arguments' fault, not the disk's.
      // A name starting with a dot is the library's staging or spill file: the directory is what matters.
      Path file = denied.getFile() == null ? null : Path.of(denied.getFile());
      boolean staging = file != null && file.getFileName() != null && file.getFileName().toString().startsWith(".");
      err.println(name + ": permission denied: " + (staging ? "this user may not write in " + file.getParent() : e.getMessage()));
      return BAD_USAGE_OR_INPUT;
    }
    if (e instanceof IOException || e instanceof UncheckedIOException) {
      err.println(name + ": I/O error: " + e.getMessage());
      return IO_ERROR;
    }
    throw e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e);
  }

  /** The project version, from the jar's {@code version.properties}. */
  public static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties properties = new Properties();
      try (InputStream in = Varve.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          properties.load(in);
        }
      }
      return new String[] {
        "varve " + properties.getProperty("version", "(unknown version)"),
        "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
      };
    }
  }
}
