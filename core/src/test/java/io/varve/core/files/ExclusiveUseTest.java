package io.varve.core.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExclusiveUseTest {
  @TempDir Path temp;

  @Test
  void oneHolderAtATimeAndFreeAgainAfterClose() throws Exception {
    Path dir = Files.createDirectories(temp.resolve("d"));
    ExclusiveUse first = ExclusiveUse.acquire(dir.resolve("LOCK"), true, "a test store");
    IllegalStateException refused =
        assertThrows(IllegalStateException.class, () -> ExclusiveUse.acquire(dir.resolve("LOCK"), true, "a test store"));
    assertTrue(refused.getMessage().contains("in this process"), refused.getMessage());
    // The same file by another spelling is the same file.
    assertThrows(IllegalStateException.class, () -> ExclusiveUse.acquire(temp.resolve("d/../d/LOCK"), false, "a test store"));
    // Another file is another lock.
    ExclusiveUse other = ExclusiveUse.acquire(dir.resolve("OTHER"), true, "a test store");
    other.close();
    first.close();
    first.close(); // twice: nothing
    ExclusiveUse again = ExclusiveUse.acquire(dir.resolve("LOCK"), false, "a test store");
    again.close();
    assertTrue(Files.exists(dir.resolve("LOCK")), "the lock file stays");
  }

  @Test
  void aMissingFileIsNotCreatedUnlessAskedAndHoldsNothing() throws Exception {
    Path missing = temp.resolve("missing");
    assertThrows(NoSuchFileException.class, () -> ExclusiveUse.acquire(missing, false, "a test store"));
    assertFalse(Files.exists(missing));
    assertThrows(java.io.IOException.class, () -> ExclusiveUse.acquire(temp.resolve("no-dir/LOCK"), true, "a test store"));
    ExclusiveUse.acquire(missing, true, "a test store").close(); // the failures registered nothing
  }

  /**
   * This class loaded a second time (an application server, Spark's isolated loaders) must be
   * refused by the first copy's register, not open the file: closing its descriptor would drop the
   * first copy's lock, and another process could then open the store too. Before the register was
   * the JVM's, the second copy was refused only by the JDK's lock table, after opening the file,
   * and the lock was gone when a second process asked.
   */
  @Test
  void aSecondCopyOfThisClassIsRefusedWithoutDroppingTheLock() throws Exception {
    Path lockFile = temp.resolve("LOCK");
    URL classes = ExclusiveUse.class.getProtectionDomain().getCodeSource().getLocation();
    try (ExclusiveUse first = ExclusiveUse.acquire(lockFile, true, "a test store");
        URLClassLoader otherLoader = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader())) {
      Class<?> otherCopy = otherLoader.loadClass(ExclusiveUse.class.getName());
      assertFalse(otherCopy == ExclusiveUse.class, "a second copy of the class");
      Method acquire = otherCopy.getMethod("acquire", Path.class, boolean.class, String.class);
      InvocationTargetException refused =
          assertThrows(InvocationTargetException.class, () -> acquire.invoke(null, lockFile, false, "a test store"));
      assertEquals("held", LockProbeChild.probe(lockFile), "the first copy still holds the lock");
      assertEquals(IllegalStateException.class, refused.getCause().getClass());
      assertTrue(refused.getCause().getMessage().contains("in this process already"), refused.getCause().getMessage());
    }
    assertEquals("free", LockProbeChild.probe(lockFile));
  }
}
