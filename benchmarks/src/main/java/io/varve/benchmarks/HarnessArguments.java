package io.varve.benchmarks;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/** The {@code --name value} arguments of a harness run by hand, and its switches (no value). Stateless. */
public final class HarnessArguments {
  private HarnessArguments() {}

  /**
   * The options in {@code args} by name (without the dashes); a switch maps to "".
   *
   * @throws IllegalArgumentException for an argument that is not an option, an option without its
   *     value, or one given twice
   */
  public static Map<String, String> parse(String[] args, Predicate<String> isSwitch) {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument " + args[i]);
      }
      String name = args[i].substring(2);
      boolean takesValue = !isSwitch.test(name);
      if (takesValue && i + 1 == args.length) {
        throw new IllegalArgumentException(args[i] + " needs a value (the harness's usage is in its class Javadoc)");
      }
      if (options.put(name, takesValue ? args[++i] : "") != null) {
        throw new IllegalArgumentException(args[i - (takesValue ? 1 : 0)] + " is given twice");
      }
    }
    return options;
  }
}
