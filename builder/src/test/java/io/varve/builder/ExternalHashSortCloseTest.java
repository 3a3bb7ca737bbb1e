package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record added to a sort that a close on another thread released (what {@code
 * CloseDuringBuildTest} races: a merger's first put against the shutdown hook's close) is refused
 * with an {@link IllegalStateException} saying so. Before, the add failed on the released buffers,
 * with an {@code ArrayIndexOutOfBoundsException} (seen once in CI, on Temurin 25).
 */
class ExternalHashSortCloseTest {
  @TempDir Path temp;

  @Test
  void aRecordAddedAfterACloseIsRefusedAsClosed() {
    ExternalHashSort sort = new ExternalHashSort(2 << 20, RecordHasher.xxh3(0), DuplicatePolicy.LAST_WINS, () -> temp);
    sort.close();
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> sort.add(1, 2, new byte[] {1}, 0, 1, new byte[] {2}, 0, 1));
    assertTrue(e.getMessage().startsWith("the sort was closed (from another thread)"), e.getMessage());
  }
}
