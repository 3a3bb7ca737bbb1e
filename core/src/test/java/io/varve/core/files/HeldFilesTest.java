package io.varve.core.files;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeldFilesTest {
  @TempDir Path temp;

  @Test
  void oneHolderAtATimeAndOnlyItsTokenReleases() {
    Path file = temp.resolve("LOCK");
    assertFalse(HeldFiles.isHeld(file));
    String token = HeldFiles.hold(file, "a test");
    assertNotNull(token);
    assertTrue(HeldFiles.isHeld(file));
    assertNull(HeldFiles.hold(file, "a test"), "held already");
    HeldFiles.release(file, "a test " + "someone else's token");
    assertTrue(HeldFiles.isHeld(file), "a stale token releases nothing");
    assertFalse(HeldFiles.isHeld(temp.resolve("OTHER")));
    HeldFiles.release(file, token);
    assertFalse(HeldFiles.isHeld(file));
    String again = HeldFiles.hold(file, "a test");
    assertNotNull(again);
    HeldFiles.release(file, again);
  }
}
