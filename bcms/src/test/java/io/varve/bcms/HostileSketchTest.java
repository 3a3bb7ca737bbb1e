package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.HostileDirectories;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every sketch file in {@code hostile/sketch} (see {@link HostileSketchFiles}) does what its note
 * says when opened: refused with a {@link CorruptStoreException} whose message holds the note's
 * fragment and names the file, never another exception; or, where one commit slot is damaged and
 * the other answers, opened with the base's total weight and counts, also without verification.
 */
class HostileSketchTest {
  @TempDir Path temp;

  static Path folder() throws URISyntaxException {
    return Path.of(HostileSketchTest.class.getResource("/hostile/sketch").toURI());
  }

  static List<String> variants() throws IOException, URISyntaxException {
    return HostileDirectories.names(folder());
  }

  private static AnySketch open(Path file, boolean pages, boolean verify) {
    if (pages) {
      return AnySketch.of(verify ? BufferedCountMinSketch.open(file, 1 << 16) : BufferedCountMinSketch.openUnverified(file, 1 << 16));
    }
    return AnySketch.of(verify ? CountMinSketch.open(file) : CountMinSketch.openUnverified(file));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("variants")
  void opensAsItsNoteSays(String variant) throws Exception {
    Path source = folder().resolve(variant);
    String expect = Files.readString(source.resolve(HostileSketchFiles.EXPECT));
    boolean pages = variant.startsWith("pages-");
    Path file = temp.resolve(variant + ".sketch");
    Files.copy(source.resolve(HostileSketchFiles.FILE), file);
    if (expect.startsWith("opens ")) {
      long weight = Long.parseLong(expect.substring("opens ".length()));
      for (boolean verify : new boolean[] {true, false}) {
        try (AnySketch sketch = open(file, pages, verify)) {
          assertEquals(weight, sketch.totalWeight(), variant);
          for (int i = 0; i < 40; i++) {
            long count = 0;
            for (int j = i; j < 300; j += 40) {
              count += 1 + j % 3;
            }
            assertTrue(sketch.estimate((long) i) >= count, variant + ": item " + i + " below its count " + count);
          }
        }
      }
      System.out.println("HostileSketchTest " + variant + ": opens");
      return;
    }
    String fragment = expect.substring("refused: ".length());
    Throwable thrown = null;
    try {
      open(file, pages, true).close();
    } catch (Exception | Error e) {
      thrown = e;
    }
    if (thrown == null) {
      fail(variant + " opened");
    }
    if (!(thrown instanceof CorruptStoreException)) {
      throw new AssertionError(variant + " failed otherwise than with a CorruptStoreException", thrown);
    }
    assertTrue(thrown.getMessage().contains(fragment) && thrown.getMessage().contains(file.toString()),
        variant + ": expected a message with \"" + fragment + "\" naming the file, got: " + thrown.getMessage());
    System.out.println("HostileSketchTest " + variant + ": " + thrown.getMessage());
  }

  @Test
  void theFolderHoldsEveryGeneratedVariant() throws Exception {
    HostileDirectories.assertHoldsExactly(folder(), HostileSketchFiles.variants());
  }
}
