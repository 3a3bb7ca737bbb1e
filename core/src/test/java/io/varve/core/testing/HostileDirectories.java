package io.varve.core.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.files.FileTrees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A folder of hostile store directories under the test resources, for stores of several files (the
 * single-file kind is {@link HostileFolder}). Each variant is a folder of the files that replace a
 * base directory's, a file {@value #DELETED} listing the files and directories to remove from it,
 * and notes: small text files that say what the test needs to know (which base, what error to
 * expect), never copied into the store.
 *
 * <pre>
 * folder/
 *   variant-name/
 *     deleted        names to remove from the base, one per line (absent when none)
 *     NOTE           one file per note of the variant, its text
 *     FILE           a file put over the base's, byte for byte
 * </pre>
 *
 * A generator builds the {@link Variant}s, {@link #write}s them once, and its test checks that the
 * folder still {@link #assertHoldsExactly holds exactly} what it generates. Stateless.
 */
public final class HostileDirectories {
  /** The file of a variant that lists what to remove from the base. */
  public static final String DELETED = "deleted";

  private HostileDirectories() {}

  /** A variant: its notes, and the files that replace the base's ({@code null}: removed). Not thread-safe. */
  public static final class Variant {
    private final Map<String, String> notes = new TreeMap<>();
    private final Map<String, byte[]> files = new LinkedHashMap<>();

    /** Adds the note {@code name}, written as a file of that name. */
    public Variant note(String name, String text) {
      notes.put(name, text);
      return this;
    }

    /** Puts {@code bytes} over the base's {@code file}, or removes it when {@code bytes} is null. */
    public Variant with(String file, byte[] bytes) {
      files.put(file, bytes);
      return this;
    }

    public String note(String name) {
      return notes.get(name);
    }
  }

  /** The variants' names: the folders in {@code folder}, sorted. */
  public static List<String> names(Path folder) throws IOException {
    try (Stream<Path> dirs = Files.list(folder)) {
      return dirs.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  /** Writes each variant as a folder of {@code folder}, which is emptied first. */
  public static void write(Path folder, Map<String, Variant> variants) throws IOException {
    FileTrees.deleteTree(folder);
    for (Map.Entry<String, Variant> variant : variants.entrySet()) {
      Path dir = folder.resolve(variant.getKey());
      Files.createDirectories(dir);
      for (Map.Entry<String, String> note : variant.getValue().notes.entrySet()) {
        Files.write(dir.resolve(note.getKey()), note.getValue().getBytes(StandardCharsets.UTF_8));
      }
      StringBuilder deleted = new StringBuilder();
      for (Map.Entry<String, byte[]> file : variant.getValue().files.entrySet()) {
        if (file.getValue() == null) {
          deleted.append(file.getKey()).append('\n');
        } else {
          Files.write(dir.resolve(file.getKey()), file.getValue());
        }
      }
      if (deleted.length() > 0) {
        Files.write(dir.resolve(DELETED), deleted.toString().getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  /** Asserts that {@code folder} holds one folder per variant, with its notes and files byte for byte. */
  public static void assertHoldsExactly(Path folder, Map<String, Variant> variants) throws IOException {
    List<String> names = names(folder);
    assertFalse(names.isEmpty(), folder + " is empty");
    assertEquals(variants.keySet().stream().sorted().toList(), names);
    for (Map.Entry<String, Variant> variant : variants.entrySet()) {
      Path dir = folder.resolve(variant.getKey());
      for (Map.Entry<String, String> note : variant.getValue().notes.entrySet()) {
        assertEquals(note.getValue(), Files.readString(dir.resolve(note.getKey())), variant.getKey() + "/" + note.getKey());
      }
      for (Map.Entry<String, byte[]> file : variant.getValue().files.entrySet()) {
        if (file.getValue() == null) {
          assertTrue(Files.readAllLines(dir.resolve(DELETED), StandardCharsets.UTF_8).contains(file.getKey()),
              variant.getKey() + " removes " + file.getKey());
        } else {
          assertArrayEquals(file.getValue(), Files.readAllBytes(dir.resolve(file.getKey())), variant.getKey() + "/" + file.getKey());
        }
      }
    }
  }

  /**
   * Copies the directory {@code base} to {@code into}, then puts the variant in {@code variant} over
   * it: its files replace the base's, the names its {@value #DELETED} lists are removed, and its
   * {@code notes} are left out. Returns {@code into}.
   */
  public static Path materialize(Path base, Path variant, Path into, Set<String> notes) throws IOException {
    FileTrees.copyTree(base, into);
    try (Stream<Path> files = Files.list(variant)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        if (name.equals(DELETED)) {
          for (String deleted : Files.readAllLines(file)) {
            FileTrees.deleteTree(into.resolve(deleted.trim()));
          }
        } else if (!notes.contains(name)) {
          Files.copy(file, into.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    return into;
  }
}
