package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every public top-level type of the library modules has a Javadoc comment that says whether it is
 * thread-safe (or immutable, or stateless, which say as much).
 */
class PublicTypesDocumentedTest {
  private static final List<String> LIBRARY_MODULES = List.of("core", "builder", "reader", "bcms", "bufferhash", "silt", "spark");
  private static final Pattern PUBLIC_TYPE =
      Pattern.compile("(?m)^public\\s+(?:(?:final|abstract|sealed|non-sealed|static)\\s+)*(?:class|interface|enum|record|@interface)\\s+(\\w+)");
  private static final Pattern THREAD_SAFETY = Pattern.compile("(?i)thread|immutable|stateless");

  @Test
  void everyPublicTypeSaysWhetherItIsThreadSafe() throws IOException {
    List<String> silent = new ArrayList<>();
    int checked = 0;
    for (String module : LIBRARY_MODULES) {
      try (Stream<Path> files = Files.walk(Path.of("..", module, "src", "main", "java"))) {
        for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
          String source = Files.readString(file, StandardCharsets.UTF_8);
          Matcher type = PUBLIC_TYPE.matcher(source);
          if (!type.find()) {
            continue;
          }
          checked++;
          String before = source.substring(0, type.start());
          int javadoc = before.lastIndexOf("/**");
          String comment = javadoc < 0 ? "" : before.substring(javadoc);
          if (!comment.contains("*/") || !THREAD_SAFETY.matcher(comment).find()) {
            silent.add(module + ": " + type.group(1));
          }
        }
      }
    }
    assertTrue(checked > 50, "found only " + checked + " public types");
    assertTrue(silent.isEmpty(), "public types whose Javadoc does not say whether they are thread-safe: " + silent);
  }
}
