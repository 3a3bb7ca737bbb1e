package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every directory in {@code hostile/bufferhash} must be refused on open with a {@link CorruptStoreException}. */
class HostileBufferHashTest {
  @TempDir Path temp;

  static List<String> variants() throws IOException, URISyntaxException {
    Path folder = Path.of(HostileBufferHashTest.class.getResource("/hostile/bufferhash").toURI());
    try (Stream<Path> dirs = Files.list(folder)) {
      return dirs.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  private Path materialize(String variant) throws Exception {
    Path source = Path.of(HostileBufferHashTest.class.getResource("/hostile/bufferhash/" + variant).toURI());
    String base = Files.readString(source.resolve("base")).trim();
    Path dir = temp.resolve(variant);
    Files.createDirectories(dir);
    Path golden = Path.of(HostileBufferHashTest.class.getResource("/golden/" + base).toURI());
    try (Stream<Path> files = Files.list(golden)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Files.copy(file, dir.resolve(file.getFileName()));
      }
    }
    try (Stream<Path> files = Files.list(source)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        if (name.equals("deleted")) {
          for (String deleted : Files.readAllLines(file)) {
            Files.deleteIfExists(dir.resolve(deleted.trim()));
          }
        } else if (!name.equals("base")) {
          Files.copy(file, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    return dir;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("variants")
  void isRefusedOnOpen(String variant) throws Exception {
    Path dir = materialize(variant);
    Path source = Path.of(HostileBufferHashTest.class.getResource("/hostile/bufferhash/" + variant).toURI());
    Durability durability = Files.readString(source.resolve("base")).contains("crashed") ? Durability.SYNC_ON_CALL : Durability.BUFFERS_IN_RAM;
    CorruptStoreException e =
        assertThrows(
            CorruptStoreException.class,
            () -> BufferHash.builder(dir).memoryBytes(64 * 1024).entryBytes(24).bufferBytes(4096).durability(durability).open().close(),
            variant);
    System.out.println("HostileBufferHashTest " + variant + ": " + e.getMessage());
  }

  @Test
  void theFolderHoldsEveryGeneratedVariant() throws Exception {
    Map<String, HostileBufferHashFiles.Variant> generated = HostileBufferHashFiles.variants();
    assertEquals(new TreeSet<>(generated.keySet()), new TreeSet<>(variants()));
    for (Map.Entry<String, HostileBufferHashFiles.Variant> variant : generated.entrySet()) {
      Path source = Path.of(HostileBufferHashTest.class.getResource("/hostile/bufferhash/" + variant.getKey()).toURI());
      assertEquals(variant.getValue().base, Files.readString(source.resolve("base")));
      for (Map.Entry<String, byte[]> file : variant.getValue().files.entrySet()) {
        if (file.getValue() == null) {
          assertEquals(true, Files.readAllLines(source.resolve("deleted"), StandardCharsets.UTF_8).contains(file.getKey()));
        } else {
          assertArrayEquals(file.getValue(), Files.readAllBytes(source.resolve(file.getKey())), variant.getKey() + "/" + file.getKey());
        }
      }
    }
  }
}
