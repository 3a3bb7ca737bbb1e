package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.HostileDirectories;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every directory in {@code hostile/bufferhash} must be refused on open with a {@link CorruptStoreException}. */
class HostileBufferHashTest {
  @TempDir Path temp;

  static Path resource(String path) throws URISyntaxException {
    return Path.of(HostileBufferHashTest.class.getResource(path).toURI());
  }

  static List<String> variants() throws IOException, URISyntaxException {
    return HostileDirectories.names(resource("/hostile/bufferhash"));
  }

  private Path materialize(String variant) throws Exception {
    Path source = resource("/hostile/bufferhash/" + variant);
    Path golden = resource("/golden/" + Files.readString(source.resolve(HostileBufferHashFiles.BASE)).trim());
    return HostileDirectories.materialize(golden, source, temp.resolve(variant), Set.of(HostileBufferHashFiles.BASE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("variants")
  void isRefusedOnOpen(String variant) throws Exception {
    Path dir = materialize(variant);
    Path source = resource("/hostile/bufferhash/" + variant);
    Durability durability = Files.readString(source.resolve(HostileBufferHashFiles.BASE)).contains("crashed") ? Durability.SYNC_ON_CALL : Durability.BUFFERS_IN_RAM;
    CorruptStoreException e =
        assertThrows(
            CorruptStoreException.class,
            () -> BufferHash.builder(dir).memoryBytes(64 * 1024).entryBytes(24).bufferBytes(4096).durability(durability).open().close(),
            variant);
    System.out.println("HostileBufferHashTest " + variant + ": " + e.getMessage());
  }

  @Test
  void theFolderHoldsEveryGeneratedVariant() throws Exception {
    HostileDirectories.assertHoldsExactly(resource("/hostile/bufferhash"), HostileBufferHashFiles.variants());
  }
}
