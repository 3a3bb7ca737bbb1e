package io.varve.examples;

import java.util.HashMap;
import java.util.Map;

/** {@code --name value} command-line options, with typed getters that name a bad value. */
final class Options {
  private final Map<String, String> values;

  private Options(Map<String, String> values) {
    this.values = values;
  }

  static Options parse(String[] args) {
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new IllegalArgumentException("unexpected argument '" + arg + "'");
      }
      String name = arg.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new IllegalArgumentException("option --" + name + " needs a value");
      }
      values.put(name, value);
    }
    return new Options(values);
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
