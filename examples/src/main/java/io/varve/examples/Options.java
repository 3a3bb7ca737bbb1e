package io.varve.examples;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Command-line arguments: {@code --name value} (or {@code --name=value}) options and {@code --flag}
 * switches, both named in advance by the command, and positional arguments ({@code -} alone is
 * positional: stdin; after {@code --} every argument is positional, even one that starts with
 * {@code --}). Typed getters name a bad value. Misuse is reported at once, naming the option: an
 * option the command does not take (with the nearest it does take), an option without its value
 * (last on the line, empty, or followed by another option), an option given twice, a switch given a
 * value. Not thread-safe.
 */
final class Options {
  /** Where every command's options are listed, for messages about options. */
  static final String SEE_HELP = "'Examples help' lists every example's options";

  private final Map<String, String> values;
  private final List<String> positional;

  private Options(Map<String, String> values, List<String> positional) {
    this.values = values;
    this.positional = positional;
  }

  /** Parses options that all take a value (names in {@code valued}), and no positional arguments. */
  static Options parse(String[] args, Set<String> valued) {
    Options options = parse(args, Set.of(), valued);
    if (!options.positional.isEmpty()) {
      throw new IllegalArgumentException(
          "unexpected argument '" + options.positional.get(0) + "' (this command takes options only; " + SEE_HELP + ")");
    }
    return options;
  }

  /**
   * Parses {@code args}: the switches named in {@code switches} (no value), the options named in
   * {@code valued}, and positional arguments.
   *
   * @throws IllegalArgumentException naming the option, for any misuse listed in the class comment
   */
  static Options parse(String[] args, Set<String> switches, Set<String> valued) {
    Map<String, String> values = new HashMap<>();
    List<String> positional = new ArrayList<>();
    boolean optionsEnded = false;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (optionsEnded || !isOption(arg)) {
        if (!optionsEnded && arg.equals("--")) {
          optionsEnded = true;
        } else {
          positional.add(arg);
        }
        continue;
      }
      String name = arg.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (!switches.contains(name) && !valued.contains(name)) {
        throw new IllegalArgumentException("unknown option --" + name + suggestion(name, switches, valued) + "; " + SEE_HELP);
      }
      if (values.containsKey(name)) {
        throw new IllegalArgumentException("option --" + name + " is given twice");
      }
      if (switches.contains(name)) {
        if (value != null) {
          throw new IllegalArgumentException("option --" + name + " takes no value, got '" + value + "'");
        }
        value = "true";
      } else if (value == null) {
        // A value that looks like an option is far more likely a forgotten value: --name=--x says otherwise.
        if (i + 1 == args.length || isOption(args[i + 1])) {
          throw new IllegalArgumentException("option --" + name + " needs a value" + (i + 1 == args.length ? "" : ", but "
              + args[i + 1] + " follows it (write --" + name + "=" + args[i + 1] + " if that is the value)"));
        }
        value = args[++i];
      }
      if (value.isEmpty()) {
        throw new IllegalArgumentException("option --" + name + " needs a value, but it is empty");
      }
      values.put(name, value);
    }
    return new Options(values, positional);
  }

  private static boolean isOption(String arg) {
    return arg.startsWith("--") && arg.length() > 2;
  }

  /** {@code " (did you mean --x?)"} for the known option nearest to {@code name}, if one is near. */
  private static String suggestion(String name, Set<String> switches, Set<String> valued) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (Set<String> known : List.of(switches, valued)) {
      for (String candidate : known) {
        int distance = editDistance(name, candidate);
        if (distance < bestDistance || distance == bestDistance && candidate.compareTo(best) < 0) {
          best = candidate;
          bestDistance = distance;
        }
      }
    }
    // Two edits (a transposition, a missing letter and a typo) are near; more is another word.
    return best != null && bestDistance <= Math.min(2, name.length() / 2) ? " (did you mean --" + best + "?)" : "";
  }

  /** Levenshtein distance. */
  private static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }

  /** The positional arguments. */
  List<String> positional() {
    return positional;
  }

  /**
   * The positional arguments, checked to number from {@code min} to {@code max}.
   *
   * @param missing what the first missing argument is, for the message ({@code "INPUT (a file)"})
   * @param usage the command's usage line, shown after the message
   */
  List<String> positional(int min, int max, String missing, String usage) {
    if (positional.size() < min) {
      throw missing(missing, usage);
    }
    if (positional.size() > max) {
      String extra = positional.get(max);
      throw new IllegalArgumentException(
          "unexpected argument '" + extra + "'" + (extra.startsWith("-") && extra.length() > 1 ? " (options start with --)" : "")
              + "\n" + usage);
    }
    return positional;
  }

  /** The error for a missing argument or option: what it is, then the command's usage line. */
  static IllegalArgumentException missing(String what, String usage) {
    return new IllegalArgumentException("missing " + what + "\n" + usage);
  }

  /** {@code a} and {@code more}, as one set of option names. */
  static Set<String> names(Set<String> a, String... more) {
    Set<String> all = new java.util.HashSet<>(a);
    all.addAll(List.of(more));
    return Set.copyOf(all);
  }

  /** Whether switch {@code name} was given. */
  boolean flag(String name) {
    return values.remove(name) != null;
  }

  /** The string option {@code name}, or {@code defaultValue}. */
  String getString(String name, String defaultValue) {
    String value = values.remove(name);
    return value == null ? defaultValue : value;
  }

  /** Whether option {@code name} was given and not yet read. */
  boolean has(String name) {
    return values.containsKey(name);
  }

  /**
   * A byte size such as {@code 256m}, {@code 1g}, {@code 65536}, {@code 64k} or {@code 4KiB}
   * (binary units).
   */
  long getBytes(String name, long defaultValue, long min) {
    String text = values.remove(name);
    if (text == null) {
      return defaultValue;
    }
    String lower = text.trim().toLowerCase(java.util.Locale.ROOT);
    if (lower.endsWith("kib") || lower.endsWith("mib") || lower.endsWith("gib")) {
      lower = lower.substring(0, lower.length() - 2);
    }
    long unit = 1;
    char last = lower.isEmpty() ? ' ' : lower.charAt(lower.length() - 1);
    if (last == 'k' || last == 'm' || last == 'g') {
      unit = last == 'k' ? 1L << 10 : last == 'm' ? 1L << 20 : 1L << 30;
      lower = lower.substring(0, lower.length() - 1);
    }
    long value;
    try {
      value = Math.multiplyExact(Long.parseLong(lower), unit);
    } catch (NumberFormatException | ArithmeticException e) {
      String problem = INTEGER.matcher(lower).matches() ? " is far too large" : " expects a size such as 4k, 256m or 1g";
      throw new IllegalArgumentException("--" + name + problem + ", got '" + text + "'");
    }
    if (value < min) {
      throw new IllegalArgumentException("--" + name + " must be at least " + showBytes(min) + ", got '" + text + "'");
    }
    return value;
  }

  private static final java.util.regex.Pattern INTEGER = java.util.regex.Pattern.compile("[-+]?[0-9]+");

  /** {@code 16m}, {@code 4k} or {@code 1 byte}: a size as an option would take it. */
  static String showBytes(long bytes) {
    for (String unit : new String[] {"g", "m", "k"}) {
      long scale = unit.equals("g") ? 1L << 30 : unit.equals("m") ? 1L << 20 : 1L << 10;
      if (bytes >= scale && bytes % scale == 0) {
        return bytes / scale + unit;
      }
    }
    return bytes + (bytes == 1 ? " byte" : " bytes");
  }

  /** A byte size as for {@link #getBytes} that fits an {@code int}, such as a block or page size. */
  int getIntBytes(String name, int defaultValue, int min) {
    long value = getBytes(name, defaultValue, min);
    if (value > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("--" + name + " must be less than 2 GiB, got " + value + " bytes");
    }
    return (int) value;
  }

  long getLong(String name, long defaultValue, long min, long max) {
    String text = values.remove(name);
    if (text == null) {
      return defaultValue;
    }
    long value;
    String digits = text.replace("_", "");
    try {
      value = Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--" + name + (INTEGER.matcher(digits).matches() ? " is far too large" : " expects an integer") + ", got '" + text + "'");
    }
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          "--" + name + (max == Long.MAX_VALUE ? " must be at least " + min : " must be in [" + min + ", " + max + "]")
              + ", got " + value);
    }
    return value;
  }

  int getInt(String name, int defaultValue, int min, int max) {
    return (int) getLong(name, defaultValue, min, max);
  }

  /**
   * Fails on any option given that no getter asked for: the command named it as one it takes, but
   * does not read it (a bug in the command, not in the arguments).
   */
  void checkAllUsed() {
    if (!values.isEmpty()) {
      throw new IllegalStateException("options taken but never read: --" + String.join(", --", values.keySet()));
    }
  }
}
