package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.store.StoreFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A store may have any name its file system takes: up to 255 bytes. Its staging directory and
 * that directory's lock file add 31 bytes to the name, and a name of more than 224 bytes failed
 * with "File name too long" for a file the caller never named.
 */
class LongStoreNameTest {
  @TempDir Path parent;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"ascii255", "ascii225", "threeByte255", "fourByte252"})
  void buildsAStoreWhoseNameTakesUpTo255Bytes(String kind) throws IOException {
    String name =
        switch (kind) {
          case "ascii255" -> "s".repeat(255);
          case "ascii225" -> "s".repeat(225);
          case "threeByte255" -> "\u20ac".repeat(85);
          default -> "\ud83d\ude00".repeat(63);
        };
    assertTrue(name.getBytes(StandardCharsets.UTF_8).length <= 255);
    Path target = parent.resolve(name);
    try (StoreBuilder builder = StoreBuilder.create(target)) {
      builder.put("key".getBytes(StandardCharsets.UTF_8), "value".getBytes(StandardCharsets.UTF_8));
      assertEquals(1, builder.build().meta().recordCount());
    }
    assertTrue(Files.isRegularFile(target.resolve(StoreFile.META.fileName())));
    assertEquals(List.of(name), names(), "nothing else left beside it");
  }

  @ParameterizedTest(name = "{0} bytes")
  @ValueSource(ints = {0, 1, 224, 225, 300})
  void theStagingNameKeepsWholeCharactersWithinItsBytes(int maxBytes) {
    String name = "ab\u20ac\ud83d\ude00".repeat(40);
    String prefix = StoreDirectory.utf8Prefix(name, maxBytes);
    int bytes = prefix.getBytes(StandardCharsets.UTF_8).length;
    assertTrue(name.startsWith(prefix));
    assertTrue(bytes <= maxBytes, bytes + " bytes");
    if (prefix.length() < name.length()) {
      int next = name.codePointAt(prefix.length());
      assertTrue(bytes + new String(Character.toChars(next)).getBytes(StandardCharsets.UTF_8).length > maxBytes, "the next character would not fit");
    }
  }

  private List<String> names() throws IOException {
    try (Stream<Path> entries = Files.list(parent)) {
      return entries.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }
}
