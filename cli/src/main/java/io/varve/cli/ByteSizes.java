package io.varve.cli;

import java.util.Locale;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Byte sizes as options take them: {@code 256m}, {@code 1g}, {@code 65536}, {@code 64k} or
 * {@code 4KiB} (binary units), and back; public for the examples' options. Stateless; thread-safe.
 */
public final class ByteSizes {
  private static final Pattern INTEGER = Pattern.compile("[-+]?[0-9]+");

  private ByteSizes() {}

  /**
   * Parses a size.
   *
   * @throws IllegalArgumentException naming what is wrong, for the option's message
   */
  public static long parse(String text) {
    String lower = text.trim().toLowerCase(Locale.ROOT);
    if (lower.endsWith("kib") || lower.endsWith("mib") || lower.endsWith("gib")) {
      lower = lower.substring(0, lower.length() - 2);
    }
    long unit = 1;
    char last = lower.isEmpty() ? ' ' : lower.charAt(lower.length() - 1);
    if (last == 'k' || last == 'm' || last == 'g') {
      unit = last == 'k' ? 1L << 10 : last == 'm' ? 1L << 20 : 1L << 30;
      lower = lower.substring(0, lower.length() - 1);
    }
    try {
      return Math.multiplyExact(Long.parseLong(lower), unit);
    } catch (NumberFormatException | ArithmeticException e) {
      String problem = INTEGER.matcher(lower).matches() ? "is far too large" : "expects a size such as 4k, 256m or 1g";
      throw new IllegalArgumentException(problem + ", got '" + text + "'");
    }
  }

  /** {@code 16m}, {@code 4k} or {@code 1 byte}: a size as an option would take it. */
  public static String show(long bytes) {
    for (String unit : new String[] {"g", "m", "k"}) {
      long scale = unit.equals("g") ? 1L << 30 : unit.equals("m") ? 1L << 20 : 1L << 10;
      if (bytes >= scale && bytes % scale == 0) {
        return bytes / scale + unit;
      }
    }
    return bytes + (bytes == 1 ? " byte" : " bytes");
  }

  /** The converter of size options: picocli prefixes the option's name to the message. */
  public static final class Converter implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
