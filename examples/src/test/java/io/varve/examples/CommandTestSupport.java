package io.varve.examples;

import io.varve.cli.testing.CommandTestBase;
import java.io.PrintStream;

/** The examples' command tests: {@code Examples} run in process. */
abstract class CommandTestSupport extends CommandTestBase {
  @Override
  protected int execute(String[] args, PrintStream out, PrintStream err) {
    return Examples.run(args, out, err);
  }
}
