package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An open that fails keeps no file open: a table whose state cannot be opened (no file handles
 * left, a permission, a directory in its place) kept its log's channel open, one more for every
 * retry, until the process ran out of file handles.
 */
class BufferHashFailedOpenHandlesTest {
  @TempDir Path temp;

  @AfterEach
  void restore() {
    Channels.opener = FileChannel::open;
  }

  @Test
  void anOpenWhoseStateCannotBeOpenedClosesTheLog() throws Exception {
    Path dir = temp.resolve("t");
    byte[] key = "k".getBytes(StandardCharsets.UTF_8);
    try (BufferHash table = RandomWrites.smallTable(dir, Durability.BUFFERS_IN_RAM, 4096).open()) {
      table.put(key, key);
    }
    List<FileChannel> opened = new ArrayList<>();
    Channels.opener = (file, options) -> {
      if (file.getFileName().toString().equals("state")) {
        throw new IOException(file + ": Too many open files");
      }
      FileChannel channel = FileChannel.open(file, options);
      synchronized (opened) {
        opened.add(channel);
      }
      return channel;
    };
    for (int attempt = 0; attempt < 3; attempt++) {
      IOException refused = assertThrows(IOException.class, () -> RandomWrites.smallTable(dir, Durability.BUFFERS_IN_RAM, 4096).open());
      assertTrue(refused.getMessage().contains("Too many open files"), refused.getMessage());
    }
    assertFalse(opened.isEmpty(), "the failed opens opened the log");
    for (FileChannel channel : opened) {
      assertFalse(channel.isOpen(), "a failed open left a channel of the table's files open");
    }
    Channels.opener = FileChannel::open;
    try (BufferHash table = RandomWrites.smallTable(dir, Durability.BUFFERS_IN_RAM, 4096).open()) {
      assertArrayEquals(key, table.get(key));
    }
  }
}
