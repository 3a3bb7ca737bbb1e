package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** Every call on a closed table throws {@link IllegalStateException}, its statistics included; its tuning stays readable. */
class BufferHashUseAfterCloseTest {
  @TempDir Path dir;

  @Test
  void everyCallAfterCloseIsAnIllegalState() throws Exception {
    BufferHash table = RandomWrites.smallTable(dir.resolve("t"), Durability.BUFFERS_IN_RAM, 4096).open();
    byte[] key = "k".getBytes(StandardCharsets.UTF_8);
    table.put(key, key);
    table.close();
    table.close(); // idempotent
    Executable[] calls = {
      () -> table.get(key),
      () -> table.put(key, key),
      () -> table.delete(key),
      table::sync,
      table::sizeEstimate,
      table::ramBytesUsed,
      table::stats,
      table::logPages,
      () -> table.forEach((k, v) -> {}),
    };
    for (Executable call : calls) {
      IllegalStateException refused = assertThrows(IllegalStateException.class, call);
      assertTrue(refused.getMessage().contains("closed"), refused.getMessage());
    }
    assertNotNull(table.tuning(), "the tuning describes the table");
  }
}
