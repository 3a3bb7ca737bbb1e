package io.varve.cli;

import io.varve.builder.StoreArtifacts;
import io.varve.core.artifact.StoreArtifact;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code varve pack DIR --out FILE.varve}: writes a store directory as one file ({@link
 * StoreArtifacts#pack}), which {@code get}, {@code stats}, {@code verify} and the library open in
 * place. The artifact appears complete at {@code FILE.varve} or not at all; an existing file is
 * never replaced. Not thread-safe.
 */
@Command(
    name = "pack",
    mixinStandardHelpOptions = true,
    header = "Writes a store as one .varve file, read in place.",
    usageHelpWidth = 100,
    description = "Writes a store directory as one .varve file (a ZIP of uncompressed entries aligned to 4 KiB) that"
        + " readers map in place, without unpacking.")
final class PackCommand implements Callable<Integer> {
  @ParentCommand Varve varve;

  @Parameters(index = "0", paramLabel = "DIR", description = "the store directory")
  String dir;

  @Option(names = "--out", required = true, paramLabel = "FILE.varve", description = "the artifact to write (must not exist)")
  String out;

  @Override
  public Integer call() throws IOException {
    long start = System.nanoTime();
    Path store = Arguments.storeDirectory(dir);
    Path artifact = Arguments.checkOutput(out);
    if (!StoreArtifact.isArtifactName(artifact)) {
      throw new IllegalArgumentException("--out " + out + ": an artifact's name ends in " + StoreArtifact.SUFFIX
          + " (readers of sharded stores find shards by it): give --out " + out + StoreArtifact.SUFFIX);
    }
    long bytes = StoreArtifacts.pack(store, artifact);
    varve.out.printf("packed %s into %s: %,d bytes (%.1f s)%n", dir, out, bytes, (System.nanoTime() - start) / 1e9);
    return Varve.OK;
  }
}
