package io.varve.cli;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One hostile {@code varve} command case, as stored in {@code src/test/resources/hostile/cli}: a
 * text head, then the files the case needs, byte for byte.
 *
 * <pre>
 * # what is wrong, and what the command must answer
 * given: store base            (before the run: a 3-record store; see HostileCommandTest for all)
 * run: build {dir}/in.tsv --out {dir}/out --some-unknown-flag
 * stdin: in.tsv                (optional: a file of the case fed to the command's stdin)
 * exit: 2
 * stderr: unknown option --some-unknown-flag      (fragments that must appear; stdout: likewise)
 * stderr-not: DuplicatePolicy                     (fragments that must not)
 * stdout-is: 1\n                                  (the whole of stdout)
 * creates: out                 (what a successful run may add to the case's directory)
 * === file in.tsv 4
 * a\t1\n                        (exactly 4 bytes, then a line feed)
 * </pre>
 *
 * <p>A case may run several commands: each {@code run:} starts a step, and the lines after it
 * belong to that step. Arguments are separated by single spaces; {@code ''} is an empty argument;
 * {@code {dir}} is the case's scratch directory. Arguments and fragments take the escapes
 * {@code \n}, {@code \t}, {@code \r}, {@code \\} and {@code \xHH} (so {@code \x20} is a space).
 *
 * <p>Not thread-safe while being built; immutable once parsed.
 */
final class HostileCommandCase {
  /** One command run and what it must answer. */
  static final class Step {
    final List<String> args;
    String stdin;
    int exit = -1;
    final List<String> stdout = new ArrayList<>();
    String stdoutIs;
    final List<String> stderr = new ArrayList<>();
    final List<String> stderrNot = new ArrayList<>();

    Step(List<String> args) {
      this.args = args;
    }
  }

  final List<String> description = new ArrayList<>();
  final List<String> given = new ArrayList<>();
  final List<Step> steps = new ArrayList<>();
  final List<String> creates = new ArrayList<>();
  final Map<String, byte[]> files = new LinkedHashMap<>();

  private Step step() {
    if (steps.isEmpty()) {
      throw new IllegalStateException("run: must come first");
    }
    return steps.get(steps.size() - 1);
  }

  // The builder methods, for the generator.

  HostileCommandCase why(String line) {
    description.add(line);
    return this;
  }

  HostileCommandCase given(String what) {
    given.add(what);
    return this;
  }

  /** A step; {@code args} split on spaces ({@code ''} for an empty argument). */
  HostileCommandCase run(String args) {
    steps.add(new Step(splitArgs(args)));
    return this;
  }

  /** A step with arguments given one by one (for arguments with spaces or escapes). */
  HostileCommandCase runArgs(String... args) {
    steps.add(new Step(List.of(args)));
    return this;
  }

  HostileCommandCase stdin(String file) {
    step().stdin = file;
    return this;
  }

  HostileCommandCase exit(int code) {
    step().exit = code;
    return this;
  }

  HostileCommandCase stderr(String... fragments) {
    step().stderr.addAll(List.of(fragments));
    return this;
  }

  HostileCommandCase stderrNot(String... fragments) {
    step().stderrNot.addAll(List.of(fragments));
    return this;
  }

  HostileCommandCase stdout(String... fragments) {
    step().stdout.addAll(List.of(fragments));
    return this;
  }

  HostileCommandCase stdoutIs(String text) {
    step().stdoutIs = text;
    return this;
  }

  HostileCommandCase creates(String path) {
    creates.add(path);
    return this;
  }

  HostileCommandCase file(String name, byte[] bytes) {
    files.put(name, bytes);
    return this;
  }

  HostileCommandCase text(String name, String text) {
    return file(name, text.getBytes(StandardCharsets.UTF_8));
  }

  // The stored form.

  byte[] toBytes() {
    StringBuilder head = new StringBuilder();
    for (String line : description) {
      head.append("# ").append(line).append('\n');
    }
    for (String g : given) {
      head.append("given: ").append(g).append('\n');
    }
    for (Step step : steps) {
      head.append("run:");
      for (String arg : step.args) {
        head.append(' ').append(arg.isEmpty() ? "''" : escape(arg, true));
      }
      head.append('\n');
      if (step.stdin != null) {
        head.append("stdin: ").append(step.stdin).append('\n');
      }
      head.append("exit: ").append(step.exit).append('\n');
      step.stdout.forEach(f -> head.append("stdout: ").append(escape(f, false)).append('\n'));
      if (step.stdoutIs != null) {
        head.append("stdout-is: ").append(escape(step.stdoutIs, false)).append('\n');
      }
      step.stderr.forEach(f -> head.append("stderr: ").append(escape(f, false)).append('\n'));
      step.stderrNot.forEach(f -> head.append("stderr-not: ").append(escape(f, false)).append('\n'));
    }
    for (String path : creates) {
      head.append("creates: ").append(path).append('\n');
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
    files.forEach((name, bytes) -> {
      out.writeBytes(("=== file " + name + " " + bytes.length + "\n").getBytes(StandardCharsets.UTF_8));
      out.writeBytes(bytes);
      out.write('\n');
    });
    return out.toByteArray();
  }

  static HostileCommandCase parse(byte[] bytes) {
    HostileCommandCase c = new HostileCommandCase();
    int pos = 0;
    while (pos < bytes.length) {
      int end = indexOf(bytes, (byte) '\n', pos);
      String line = new String(bytes, pos, end - pos, StandardCharsets.UTF_8);
      pos = end + 1;
      if (line.startsWith("=== file ")) {
        String[] parts = line.substring("=== file ".length()).split(" ");
        int length = Integer.parseInt(parts[1]);
        c.files.put(parts[0], java.util.Arrays.copyOfRange(bytes, pos, pos + length));
        if (bytes[pos + length] != '\n') {
          throw new IllegalArgumentException("file " + parts[0] + " is not followed by a line feed");
        }
        pos += length + 1;
        continue;
      }
      if (line.startsWith("# ")) {
        c.description.add(line.substring(2));
        continue;
      }
      int colon = line.indexOf(": ");
      String key = colon < 0 ? line.replace(":", "") : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 2);
      switch (key) {
        case "given" -> c.given(value);
        case "run" -> {
          List<String> args = new ArrayList<>();
          for (String arg : splitArgs(value)) {
            args.add(unescape(arg));
          }
          c.steps.add(new Step(args));
        }
        case "stdin" -> c.stdin(value);
        case "exit" -> c.exit(Integer.parseInt(value));
        case "stdout" -> c.stdout(unescape(value));
        case "stdout-is" -> c.stdoutIs(unescape(value));
        case "stderr" -> c.stderr(unescape(value));
        case "stderr-not" -> c.stderrNot(unescape(value));
        case "creates" -> c.creates(value);
        default -> throw new IllegalArgumentException("unknown line in a case: " + line);
      }
    }
    return c;
  }

  private static List<String> splitArgs(String text) {
    List<String> args = new ArrayList<>();
    if (text.isEmpty()) {
      return args;
    }
    for (String arg : text.split(" ", -1)) {
      args.add(arg.equals("''") ? "" : arg);
    }
    return args;
  }

  private static int indexOf(byte[] bytes, byte b, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    throw new IllegalArgumentException("a case's head line does not end with a line feed");
  }

  private static String escape(String text, boolean spaces) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\n' -> s.append("\\n");
        case '\t' -> s.append("\\t");
        case '\r' -> s.append("\\r");
        case '\\' -> s.append("\\\\");
        default -> {
          if (c < 0x20 || c == 0x7F || spaces && c == ' ') {
            s.append(String.format("\\x%02X", (int) c));
          } else {
            s.append(c);
          }
        }
      }
    }
    return s.toString();
  }

  private static String unescape(String text) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c != '\\') {
        s.append(c);
        continue;
      }
      char next = text.charAt(++i);
      switch (next) {
        case 'n' -> s.append('\n');
        case 't' -> s.append('\t');
        case 'r' -> s.append('\r');
        case '\\' -> s.append('\\');
        case 'x' -> {
          s.append((char) Integer.parseInt(text.substring(i + 1, i + 3), 16));
          i += 2;
        }
        default -> throw new IllegalArgumentException("unknown escape \\" + next + " in " + text);
      }
    }
    return s.toString();
  }
}
