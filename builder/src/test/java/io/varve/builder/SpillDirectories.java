package io.varve.builder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** What tests see of a build's temporary directory while it spills. */
final class SpillDirectories {
  private SpillDirectories() {}

  /** The partitions directory of the spill under {@code temporary}, once its first partition exists; else null. */
  static Path findPartitions(Path temporary) throws IOException {
    for (String name : list(temporary)) {
      Path partitions = temporary.resolve(name).resolve("partitions");
      if (Files.exists(partitions.resolve("p0"))) {
        return partitions;
      }
    }
    return null;
  }

  /** The names in {@code directory}, sorted. */
  static List<String> list(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }
}
