package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage that the records' checks find in a mapped data file now shorter than when the store opened
 * is the truncation, whichever check found it: the store fails as a whole. Regression: lengths that
 * ran past the data (a header read from a page past the cut) were reported as one damaged record,
 * and the store went on serving (CI saw a later lookup succeed in {@code TruncatedUnderReaderTest}).
 */
class DataFaultsTest {
  @TempDir Path temp;

  @Test
  void anyDamageInAShortenedMappedFileFailsTheStore() throws IOException {
    for (boolean checksum : new boolean[] {true, false}) {
      Path data = Files.write(temp.resolve("data-" + checksum), new byte[100]);
      LookupGuard guard = new LookupGuard("store");
      DataFaults faults = new DataFaults(temp, FileRegion.whole(data, 4096), DataAccess.MAPPED, guard);
      CorruptStoreException damage =
          checksum ? faults.damagedRecord(5000) : faults.damaged("the record at byte 5000 runs past the end of the data");
      assertTrue(damage.getMessage().contains("truncated or rewritten under the open store"), damage.getMessage());
      assertThrows(CorruptStoreException.class, () -> guard.enter(guard.slot()), "the store refuses later lookups");
    }
  }

  @Test
  void damageInAFileOfItsOpenedSizeIsOneDamagedRecord() throws IOException {
    Path data = Files.write(temp.resolve("data"), new byte[4096]);
    LookupGuard guard = new LookupGuard("store");
    DataFaults faults = new DataFaults(temp, FileRegion.whole(data, 4096), DataAccess.MAPPED, guard);
    assertTrue(faults.damaged("the record at byte 5 runs past the end of the data").getMessage().endsWith("runs past the end of the data"));
    assertTrue(faults.damagedRecord(5).getMessage().endsWith("does not match its checksum (damaged)"));
    int slot = guard.slot();
    guard.enter(slot); // still open
    guard.exit(slot);
  }
}
