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

  /**
   * An incarnation header claiming more pages than a Java array holds ({@code 2^19 + 1} pages of a
   * log of {@code 2^20}, a sparse file, so not a folder variant): refused as damage. Before, open
   * allocated {@code pages * 4096} bytes, which wrapped negative (NegativeArraySizeException) or to
   * nothing.
   */
  @ParameterizedTest(name = "{0} pages")
  @org.junit.jupiter.params.provider.ValueSource(ints = {(1 << 19) + 1, 1 << 20})
  void anIncarnationLargerThanAnArrayIsRefusedOnOpen(int pages) throws Exception {
    int logPages = 1 << 20;
    Path dir = temp.resolve("huge-incarnation-" + pages);
    Files.createDirectories(dir);
    byte[] header = new byte[LogFormat.HEADER_BYTES];
    LogFormat.INCARNATION.putHeader(header, 0, LogFormat.VERSION);
    LogFormat.putInt(header, 8, 0);
    LogFormat.putLong(header, 12, 1);
    LogFormat.putInt(header, 20, pages);
    LogFormat.putInt(header, 24, 1);
    LogFormat.INCARNATION.putFooter(header, 0, 28);
    try (java.nio.channels.FileChannel log = java.nio.channels.FileChannel.open(dir.resolve("log"),
        java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE)) {
      log.write(java.nio.ByteBuffer.wrap(header), 0);
      log.write(java.nio.ByteBuffer.allocate(1), (long) logPages * LogFormat.PAGE_BYTES - 1); // sparse
    }
    byte[] state = new byte[2 * StateSlot.BYTES];
    byte[] slot = new StateSlot(LogFormat.UNSALTED_STATE_VERSION, 1, logPages, 0, logPages, 1, 2, 0, 1, 7, 0).encode();
    System.arraycopy(slot, 0, state, StateSlot.BYTES, StateSlot.BYTES);
    Files.write(dir.resolve("state"), state);
    CorruptStoreException e = assertThrows(CorruptStoreException.class,
        () -> BufferHash.builder(dir).memoryBytes(64L << 20).entryBytes(24).open().close());
    System.out.println("HostileBufferHashTest huge incarnation of " + pages + " pages: " + e.getMessage());
  }
}
