package io.varve.spark;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * The README's Spark blocks (the job, {@code format("varve")}, the serving host's fetch) compile
 * against this module. They are fenced {@code Java}, not {@code java}, because benchmarks' {@code
 * ReadmeSnippetsTest}, which compiles the other blocks, has no Spark or Hadoop on its classpath.
 */
class ReadmeSparkSnippetTest {
  private static final Path README = Path.of("..", "README.md");
  private static final Pattern SPARK_BLOCK = Pattern.compile("(?m)^```Java\\n(.*?)^```", Pattern.DOTALL);
  private static final String IMPORTS = String.join("\n",
      "import java.nio.charset.*;",
      "import java.nio.file.*;",
      "import io.varve.builder.*;",
      "import io.varve.core.shard.*;",
      "import io.varve.reader.*;",
      "import org.apache.spark.sql.*;");

  @TempDir Path temp;

  @Test
  void theSparkBlocksCompile() throws IOException {
    Matcher block = SPARK_BLOCK.matcher(Files.readString(README, StandardCharsets.UTF_8));
    List<JavaFileObject> units = new ArrayList<>();
    StringBuilder sources = new StringBuilder();
    while (block.find()) {
      String className = "SparkFragment" + units.size();
      StringBuilder imports = new StringBuilder(IMPORTS).append('\n');
      StringBuilder body = new StringBuilder();
      for (String line : block.group(1).split("\n", -1)) {
        (line.startsWith("import ") ? imports : body).append(line).append('\n');
      }
      String source = imports + "class " + className + " {\n  static void fragment(SparkSession spark) throws Exception {\n" + body + "  }\n}\n";
      sources.append(source);
      units.add(new SimpleJavaFileObject(URI.create("string:///" + className + ".java"), JavaFileObject.Kind.SOURCE) {
        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
          return source;
        }
      });
    }
    assertTrue(units.size() >= 3,
        "the README has the Spark job's blocks (VarveSpark.write, format(\"varve\")) and the serving host's, found " + units.size());
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    StringWriter errors = new StringWriter();
    try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
      boolean ok = compiler.getTask(errors, files, null,
          List.of("-proc:none", "-classpath", classPath, "-d", temp.toString(), "-Xlint:none"), null, units).call();
      assertTrue(ok, "the README's Spark blocks do not compile:\n" + errors + "\n" + sources);
    }
    for (int i = 0; i < units.size(); i++) {
      assertTrue(Files.isRegularFile(temp.resolve("SparkFragment" + i + ".class")));
    }
  }
}
