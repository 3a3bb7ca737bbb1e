package io.varve.examples;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Command-line arguments: {@code --name value} (or {@code --name=value}) options, {@code --flag}
 * switches named in advance, and positional arguments ({@code -} alone is positional: stdin), with
 * typed getters that name a bad value. Not thread-safe.
 */
final class Options {
  private final Map<String, String> values;
  private final List<String> positional;

  private Options(Map<String, String> values, List<String> positional) {
    this.values = values;
    this.positional = positional;
  }

  /** Parses options that all take values, and no positional arguments. */
  static Options parse(String[] args) {
    Options options = parse(args, Set.of());
    if (!options.positional.isEmpty()) {
      throw new IllegalArgumentException("unexpected argument '" + options.positional.get(0) + "'");
    }
    return options;
  }

  /** Parses options, the switches named in {@code flags} (no value), and positional arguments. */
  static Options parse(String[] args, Set<String> flags) {
    Map<String, String> values = new HashMap<>();
    List<String> positional = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--") || arg.length() == 2) {
        positional.add(arg);
        continue;
      }
      String name = arg.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else if (flags.contains(name)) {
        value = "true";
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new IllegalArgumentException("option --" + name + " needs a value");
      }
      values.put(name, value);
    }
    return new Options(values, positional);
  }

  /** The positional arguments. */
  List<String> positional() {
    return positional;
  }

  /** Whether switch {@code name} was given. */
  boolean flag(String name) {
    String value = values.remove(name);
    if (value != null && !value.equals("true")) {
      throw new IllegalArgumentException("--" + name + " takes no value");
    }
    return value != null;
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
      throw new IllegalArgumentException("--" + name + " expects a size such as 4k, 256m or 1g, got '" + text + "'");
    }
    if (value < min) {
      throw new IllegalArgumentException("--" + name + " must be at least " + min + " bytes, got " + text);
    }
    return value;
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
    try {
      value = Long.parseLong(text.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " expects an integer, got '" + text + "'");
    }
    if (value < min || value > max) {
      throw new IllegalArgumentException("--" + name + " must be in [" + min + ", " + max + "], got " + value);
    }
    return value;
  }

  int getInt(String name, int defaultValue, int min, int max) {
    return (int) getLong(name, defaultValue, min, max);
  }

  /** Fails on any option that no getter asked for. */
  void checkAllUsed() {
    if (!values.isEmpty()) {
      throw new IllegalArgumentException("unknown option(s): --" + String.join(", --", values.keySet()));
    }
  }
}
