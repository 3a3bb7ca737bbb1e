package io.varve.core.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Damage done to a written file in place, for the tests that check it is detected. */
public final class FileDamage {
  private FileDamage() {}

  /** Flips the bits {@code mask} of the byte at {@code position} of {@code file}. */
  public static void flipBits(Path file, long position, int mask) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      channel.read(one, position);
      one.put(0, (byte) (one.get(0) ^ mask)).rewind();
      channel.write(one, position);
    }
  }
}
