package io.varve.core.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

/**
 * The refusal after a failed write says why and what to do. Before 2026-11-28 a store that found its
 * files damaged (a BufferHash flush meeting a damaged incarnation) told the operator to reopen it,
 * an open that meets the same damage.
 */
class WriteFailureTest {
  @Test
  void nothingIsRefusedBeforeAFailure() throws IOException {
    WriteFailure failure = new WriteFailure("the table in /data/t");
    assertFalse(failure.failed());
    failure.check();
    failure.checkUnchecked();
  }

  @Test
  void anIoFailureIsRefusedWithTheAdviceToReopen() {
    WriteFailure failure = new WriteFailure("the table in /data/t");
    IOException io = new IOException("Input/output error");
    assertSame(io, failure.record(io));
    IOException refusal = assertThrows(IOException.class, failure::check);
    assertEquals("the table in /data/t takes no more writes since a write or sync of its files failed; reopen it to recover what reached"
        + " them", refusal.getMessage());
    assertSame(io, refusal.getCause());
  }

  @Test
  void damageIsRefusedWithTheAdviceToRepairNotToReopen() {
    WriteFailure failure = new WriteFailure("the table in /data/t");
    CorruptStoreException damage = new CorruptStoreException("/data/t/log: incarnation 7 does not match its check");
    failure.record(damage);
    failure.record(new IOException("a later failure is not the one reported"));
    UncheckedIOException refusal = assertThrows(UncheckedIOException.class, failure::checkUnchecked);
    String message = refusal.getCause().getMessage();
    assertTrue(message.startsWith("the table in /data/t takes no more writes since it found its files damaged (/data/t/log: incarnation 7"),
        message);
    assertTrue(message.endsWith("repair or restore the files before it is reopened"), message);
    assertFalse(message.contains("reopen it to recover"), message);
    assertSame(damage, refusal.getCause().getCause());
  }
}
