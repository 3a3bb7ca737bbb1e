package io.varve.benchmarks.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
  @TempDir Path temp;

  @Test
  void writesTablesTargetsChartsAndTheReadmeHeadline() throws Exception {
    Path results = temp.resolve("out/results.tsv");
    Measurements m = Measurements.create(results);
    for (String[] row : new String[][] {{"Varve", "4000000", "2.0", "3000000"}, {"Sparkey", "1000000", "80", "4000000"}}) {
      m.put("8B/8B x 10^7", row[0], "records", 10_000_000);
      m.put("8B/8B x 10^7", row[0], "build.recordsPerSecond", row[1]);
      m.put("8B/8B x 10^7", row[0], "build.indexBytes", (long) (Double.parseDouble(row[2]) * 10_000_000 / 8));
      m.put("8B/8B x 10^7", row[0], "build.diskBytes", 160_000_000);
      m.put("8B/8B x 10^7", row[0], "warm.t1", row[3]);
      m.put("8B/8B x 10^7", row[0], "update.seconds", 5);
      m.put("8B/8B x 10^7", row[0], "update.method", "INCREMENTAL");
    }
    // A variant of Varve, faster than every peer: it must not become "the best peer".
    m.put("8B/8B x 10^7", "Varve-loaded", "records", 10_000_000);
    m.put("8B/8B x 10^7", "Varve-loaded", "variantOf", "Varve");
    m.put("8B/8B x 10^7", "Varve-loaded", "build.indexBytes", 200_000_000);
    m.put("8B/8B x 10^7", "Varve-loaded", "warm.t1", 5_000_000);
    m.put("8B/8B x 10^7", "PalDB", "records", 10_000_000);
    m.put("8B/8B x 10^7", "PalDB", "build.failed", "index over 2 GiB\twith a tab");
    m.put("*", "*", "totalMinutes", 1.5);
    Path readme = temp.resolve("README.md");
    Files.writeString(readme, "intro\n" + Report.BEGIN + "\nold table\n" + Report.END + "\nrest\n");

    Report.write(Measurements.read(results), temp.resolve("out"), readme);

    String md = Files.readString(temp.resolve("out/RESULTS.md"), StandardCharsets.UTF_8);
    assertTrue(md.contains("| Varve | 4.00 M | - | 16.0 | 2.00 | 3.00 M |"), md);
    assertTrue(md.contains("| PalDB | build failed: index over 2 GiB with a tab |"), md);
    // Targets: Sparkey is the fastest peer; Varve 0.75 of its lookups at 2/80 of its index, 4x its build.
    // Varve-loaded: 5/4 of Sparkey's lookups, holding 160 bits/key against Sparkey's 80.
    assertTrue(md.contains("| 8B/8B x 10^7 | Sparkey | 0.75 | 80.00 | 0.025 | 1.25 | 2.0 | Sparkey | 4.00 |"), md);
    assertTrue(md.contains("| Varve-loaded | - | - | - | 160.00 | 5.00 M |"), md);
    for (String chart : new String[] {"build-records-per-second.png", "index-bits-per-key.png", "warm-lookups-1-thread.png"}) {
      assertTrue(Files.size(temp.resolve("out").resolve(chart)) > 1000, chart);
    }
    String text = Files.readString(readme);
    assertTrue(text.startsWith("intro\n" + Report.BEGIN + "\n8B/8B x 10^7"), text);
    assertTrue(text.contains("| Varve-loaded | - | 160.00 | - | 5.00 M |"), text);
    assertTrue(text.endsWith(Report.END + "\nrest\n"), text);
    assertTrue(!text.contains("old table"), text);
    assertEquals("10^7", Report.count(10_000_000));
    assertEquals("3,000", Report.count(3000));
  }
}
