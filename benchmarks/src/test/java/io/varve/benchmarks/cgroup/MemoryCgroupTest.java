package io.varve.benchmarks.cgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryCgroupTest {
  @Test
  void childArgumentsSurviveTheShell() throws Exception {
    String odd = "it's a $HOME \"path\" with spaces";
    Process echo = new ProcessBuilder("sh", "-c", "printf %s " + MemoryCgroup.shellQuoted(odd)).start();
    assertEquals(odd, new String(echo.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    assertEquals(0, echo.waitFor());
  }

  @Test
  void withoutACgroupTheCommandRunsAsItIs() {
    List<String> command = List.of("java", "-cp", "a b.jar", "Main");
    assertEquals(command, MemoryCgroup.commandIn(null, command));
  }
}
