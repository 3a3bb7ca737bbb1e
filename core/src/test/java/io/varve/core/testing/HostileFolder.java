package io.varve.core.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.function.ThrowingConsumer;

/**
 * A folder of hostile files under the test resources, and the check that it holds exactly what its
 * generator writes (so a file edited by hand, or a generator changed without regenerating, fails);
 * {@link #tests} makes both checks for a reader, the same for every folder.
 */
public final class HostileFolder {
  private HostileFolder() {}

  /** The fields of a file, valid as constructed: a variant edits one of them to lie. */
  public interface Fields {
    /** The file these fields make, envelope included. */
    byte[] file() throws IOException;
  }

  /** Adds the variant {@code name}: fresh fields, {@code edit}ed to lie, as a file. */
  public static <F extends Fields> void lie(Map<String, byte[]> files, String name, Supplier<F> fresh, Consumer<F> edit)
      throws IOException {
    F fields = fresh.get();
    edit.accept(fields);
    files.put(name, fields.file());
  }

  /** Writes each variant into {@code folder} as a file of its name: what a generator's {@code main} does. */
  public static void write(Path folder, Map<String, byte[]> variants) throws IOException {
    Files.createDirectories(folder);
    for (Map.Entry<String, byte[]> file : variants.entrySet()) {
      Files.write(folder.resolve(file.getKey()), file.getValue());
    }
  }

  /** The files in the resource folder {@code resource} (for example {@code "/hostile/meta"}), sorted by name. */
  public static List<Path> files(String resource) {
    try {
      Path folder = Path.of(HostileFolder.class.getResource(resource).toURI());
      try (Stream<Path> files = Files.list(folder)) {
        return files.sorted().collect(Collectors.toList());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Asserts that the folder holds one file per generated variant, byte for byte. */
  public static void assertHoldsExactly(String resource, Map<String, byte[]> variants) throws IOException {
    List<Path> files = files(resource);
    List<String> names = files.stream().map(p -> p.getFileName().toString()).collect(Collectors.toList());
    assertFalse(names.isEmpty(), resource + " is empty");
    assertEquals(variants.keySet().stream().sorted().collect(Collectors.toList()), names);
    for (Path file : files) {
      assertEquals(
          Arrays.toString(variants.get(file.getFileName().toString())),
          Arrays.toString(Files.readAllBytes(file)),
          file.getFileName() + " is what the generator writes");
    }
  }

  /**
   * One test per file of the folder {@code resource}: {@code read} must refuse it with a {@link
   * CorruptStoreException} (whose message is printed); and one that the folder holds exactly
   * {@code variants}, what its generator writes.
   */
  public static Stream<DynamicTest> tests(String resource, Map<String, byte[]> variants, ThrowingConsumer<Path> read) {
    Stream<DynamicTest> rejected =
        files(resource).stream()
            .map(
                file ->
                    DynamicTest.dynamicTest(
                        file.getFileName() + " is rejected as corrupt",
                        () -> {
                          CorruptStoreException e =
                              assertThrows(CorruptStoreException.class, () -> read.accept(file), file.getFileName().toString());
                          System.out.println(resource + "/" + file.getFileName() + ": " + e.getMessage());
                        }));
    DynamicTest complete =
        DynamicTest.dynamicTest("the folder holds every generated variant", () -> assertHoldsExactly(resource, variants));
    return Stream.concat(rejected, Stream.of(complete));
  }
}
