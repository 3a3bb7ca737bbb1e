package io.varve.cli;

import io.varve.cli.testing.CommandTestBase;
import java.io.InputStream;
import java.io.PrintStream;

/** The command tests' base: {@code varve} run in process, with nothing on stdin. */
abstract class CommandTestSupport extends CommandTestBase {
  @Override
  protected int execute(String[] args, PrintStream out, PrintStream err) {
    return Varve.run(args, InputStream.nullInputStream(), out, err);
  }
}
