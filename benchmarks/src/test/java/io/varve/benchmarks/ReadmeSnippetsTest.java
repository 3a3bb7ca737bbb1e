package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code java} block of the README compiles against the library. The quickstart is a whole
 * program, the same text as {@code examples/.../quickstart/Quickstart.java} (which {@code
 * QuickstartTest} runs); the other blocks are fragments, compiled as the body of a method that has
 * {@link #FRAGMENT_IMPORTS} and the variables of {@link #FRAGMENT_CONTEXT} in scope.
 */
class ReadmeSnippetsTest {
  private static final Path README = Path.of("..", "README.md");
  private static final Path QUICKSTART = Path.of("..", "examples", "src", "main", "java", "io", "varve", "examples", "quickstart", "Quickstart.java");
  private static final Pattern JAVA_BLOCK = Pattern.compile("(?m)^```java\\n(.*?)^```", Pattern.DOTALL);

  /** What a fragment may use without importing it. */
  static final String FRAGMENT_IMPORTS =
      String.join(
          "\n",
          "import java.io.*;",
          "import java.nio.file.*;",
          "import java.util.*;",
          "import io.varve.builder.*;",
          "import io.varve.reader.*;",
          "import io.varve.core.serial.*;",
          "import io.varve.core.store.*;",
          "import io.varve.bcms.*;",
          "import io.varve.bufferhash.*;",
          "import io.varve.silt.*;");

  /** The variables a fragment may use without declaring them (unless it declares them itself). */
  static final List<String> FRAGMENT_CONTEXT =
      List.of(
          "Path dir = Path.of(\"store\");",
          "Path denseDir = dir;",
          "Path sparseDir = dir;",
          "Path denseDir2 = dir;",
          "Path path = dir;",
          "StoreRoot root = null;",
          "byte[] key = new byte[1];",
          "byte[] otherKey = key;",
          "byte[] newValue = key;",
          "byte[] someKey = key;",
          "byte[] sha1 = key;",
          "byte[] otherSha1 = key;",
          "byte[] address = key;",
          "byte[][] keys = {key};",
          "int n = keys.length;",
          "long somePair = 0;",
          "long[] stream = {};");

  @TempDir Path temp;

  @Test
  void everyJavaBlockCompiles() throws IOException {
    String readme = Files.readString(README, StandardCharsets.UTF_8);
    Matcher blocks = JAVA_BLOCK.matcher(readme);
    List<JavaFileObject> units = new ArrayList<>();
    boolean quickstartSeen = false;
    int number = 0;
    while (blocks.find()) {
      number++;
      String block = blocks.group(1);
      if (block.contains("class Quickstart")) {
        quickstartSeen = true;
        String program = Files.readString(QUICKSTART, StandardCharsets.UTF_8);
        assertEquals(program.substring(program.indexOf("import ")), block, "the README's quickstart is Quickstart.java without its package line");
        units.add(source("Quickstart", block));
      } else {
        units.add(source("Fragment" + number, fragment("Fragment" + number, block)));
      }
    }
    assertTrue(quickstartSeen, "the README has a quickstart program");
    assertTrue(number >= 5, "found only " + number + " java blocks");
    compile(units);
  }

  /** {@code block} as the body of a method, its own imports hoisted. */
  private static String fragment(String className, String block) {
    StringBuilder imports = new StringBuilder(FRAGMENT_IMPORTS).append('\n');
    StringBuilder body = new StringBuilder();
    for (String line : block.split("\n", -1)) {
      (line.startsWith("import ") ? imports : body).append(line).append('\n');
    }
    StringBuilder context = new StringBuilder();
    for (String declaration : FRAGMENT_CONTEXT) {
      String name = declaration.substring(0, declaration.indexOf(" =")).replaceAll(".*\\s", "");
      if (!Pattern.compile("[\\w\\]>]\\s+" + name + "\\s*=").matcher(body).find()) {
        context.append("    ").append(declaration).append('\n');
      }
    }
    return imports + "class " + className + " {\n  static void fragment() throws Exception {\n" + context + body + "  }\n}\n";
  }

  private void compile(List<JavaFileObject> units) throws IOException {
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    StringWriter errors = new StringWriter();
    try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
      boolean ok =
          compiler
              .getTask(errors, files, null, List.of("-proc:none", "-classpath", classPath, "-d", temp.toString(), "-Xlint:none"), null, units)
              .call();
      assertTrue(ok, "README java blocks do not compile:\n" + errors);
    }
    assertFalse(classPath.isEmpty());
    assertTrue(new File(temp.toFile(), "Quickstart.class").isFile());
  }

  private static JavaFileObject source(String className, String text) {
    return new SimpleJavaFileObject(URI.create("string:///" + className + ".java"), JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return text;
      }
    };
  }
}
