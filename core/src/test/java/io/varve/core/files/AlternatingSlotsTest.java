package io.varve.core.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link AlternatingSlots}: which slot a record goes to, which slot answers, and what is refused. */
class AlternatingSlotsTest {
  @TempDir Path temp;

  /** A slot of a generation, a long and their CRC32C. */
  private static final AlternatingSlots.Codec<Long> CODEC = new AlternatingSlots.Codec<>() {
    @Override
    public int slotBytes() {
      return 20;
    }

    @Override
    public void encode(long generation, Long value, byte[] slot) {
      ByteBuffer.wrap(slot).putLong(generation).putLong(value).putInt(crc(slot));
    }

    @Override
    public AlternatingSlots.Slot<Long> decode(byte[] slot) {
      ByteBuffer b = ByteBuffer.wrap(slot);
      return crc(slot) == b.getInt(16) ? new AlternatingSlots.Slot<>(b.getLong(0), b.getLong(8)) : null;
    }

    private int crc(byte[] slot) {
      CRC32C crc = new CRC32C();
      crc.update(slot, 0, 16);
      return (int) crc.getValue();
    }
  };

  private InterruptSafeFile open(Path file, OpenOption... options) throws IOException {
    return InterruptSafeFile.open(FileChannel::open, file, options, StandardOpenOption.READ, StandardOpenOption.WRITE);
  }

  private AlternatingSlots<Long> reopen(Path file) throws IOException {
    InterruptSafeFile channel = open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    try {
      return AlternatingSlots.open(channel, CODEC, "test mark", " (damaged)");
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  private static byte[] slot(byte[] file, int s) {
    return Arrays.copyOfRange(file, s * AlternatingSlots.SLOT_SPACING, s * AlternatingSlots.SLOT_SPACING + CODEC.slotBytes());
  }

  @Test
  void recordsAlternateAfterEachForceAndTheNewestValidSlotAnswers() throws IOException {
    Path file = temp.resolve("mark");
    try (AlternatingSlots<Long> slots = AlternatingSlots.create(open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE), CODEC, 7L)) {
      assertEquals(new AlternatingSlots.Slot<>(1, 7L), slots.last());
      slots.record(8L); // generation 2, into slot 0 (slot 1 holds the newest)
      slots.force();
      slots.record(9L); // generation 3, into slot 1
      slots.record(9L); // equal: not written
      assertEquals(new AlternatingSlots.Slot<>(3, 9L), slots.last());
      slots.record(10L); // unforced since: slot 1 again, never slot 0, the durable one
    }
    byte[] bytes = Files.readAllBytes(file);
    assertEquals(AlternatingSlots.fileBytes(CODEC), bytes.length);
    assertEquals(new AlternatingSlots.Slot<>(2, 8L), CODEC.decode(slot(bytes, 0)));
    assertEquals(new AlternatingSlots.Slot<>(4, 10L), CODEC.decode(slot(bytes, 1)));
    try (AlternatingSlots<Long> slots = reopen(file)) {
      assertEquals(new AlternatingSlots.Slot<>(4, 10L), slots.last());
      slots.record(11L); // open forced slot 1: the next record goes to slot 0
    }
    bytes = Files.readAllBytes(file);
    assertEquals(new AlternatingSlots.Slot<>(5, 11L), CODEC.decode(slot(bytes, 0)));
    assertEquals(new AlternatingSlots.Slot<>(4, 10L), CODEC.decode(slot(bytes, 1)));
  }

  @Test
  void aTornNewestSlotLeavesTheOtherAndNeitherValidIsRefused() throws IOException {
    Path file = temp.resolve("mark");
    try (AlternatingSlots<Long> slots = AlternatingSlots.create(open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE), CODEC, 7L)) {
      slots.record(8L); // generation 2 in slot 0
    }
    byte[] bytes = Files.readAllBytes(file);
    bytes[3] ^= 1; // slot 0 torn
    Files.write(file, bytes);
    try (AlternatingSlots<Long> slots = reopen(file)) {
      assertEquals(new AlternatingSlots.Slot<>(1, 7L), slots.last());
    }
    bytes[AlternatingSlots.SLOT_SPACING + 9] ^= 1; // slot 1 too
    Files.write(file, bytes);
    CorruptStoreException neither = assertThrows(CorruptStoreException.class, () -> reopen(file));
    assertTrue(neither.getMessage().contains(file + ": neither slot of the test mark is valid (damaged)"), neither.getMessage());
    assertArrayEquals(bytes, Files.readAllBytes(file), "a refused open wrote the file");
    Files.write(file, Arrays.copyOf(bytes, bytes.length - 1));
    CorruptStoreException cut = assertThrows(CorruptStoreException.class, () -> reopen(file));
    assertTrue(cut.getMessage().contains("a test mark of 4115 bytes, not 4116"), cut.getMessage());
  }
}
