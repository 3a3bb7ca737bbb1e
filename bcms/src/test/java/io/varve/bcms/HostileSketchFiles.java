package io.varve.bcms;

import io.varve.core.testing.HostileDirectories;
import io.varve.core.testing.HostileDirectories.Variant;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The hostile sketch files in {@code hostile/sketch}: each variant is a folder holding the file
 * {@value #FILE} and the note {@value #EXPECT}, either {@code opens <total weight>} (a damaged slot
 * whose other slot answers) or {@code refused: <fragment of the CorruptStoreException's message>}.
 * Each starts from a base sketch written by this code ({@code rows-}: a plain sketch; {@code pages-}:
 * a buffered one), created, fed and closed, so that slot 0 holds the open record of its creation
 * (generation 1) and slot 1 the closed one (generation 2), and breaks it in one way; checksums are
 * recomputed wherever the check under test is not the checksum. Variants {@code -v1-} start from the
 * version-1 file of the same sketch. Regenerate with {@link #main} after a deliberate format change.
 */
final class HostileSketchFiles {
  private HostileSketchFiles() {}

  static final String FILE = "sketch";
  static final String EXPECT = "expect";

  static final SketchParameters ROWS = SketchParameters.ofDimensions(64, 2).withCounterBits(32).withSeed(3);
  static final SketchParameters PAGES =
      SketchParameters.ofDimensions(200, 2).withCounterBits(32).withPageSize(512).withSeed(3);

  /** The base file of {@code layout}, as this code writes it. */
  static byte[] base(boolean pages) {
    try {
      Path dir = Files.createTempDirectory("hostile-sketch");
      Path file = dir.resolve("base");
      try (AnySketch sketch = pages ? AnySketch.of(BufferedCountMinSketch.create(file, PAGES, 4096))
          : AnySketch.of(CountMinSketch.create(file, ROWS))) {
        for (int i = 0; i < 300; i++) {
          sketch.update((long) (i % 40), 1 + i % 3);
        }
      }
      byte[] bytes = Files.readAllBytes(file);
      Files.delete(file);
      Files.delete(dir);
      return bytes;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The base's total weight: what a variant that opens answers with. */
  static long baseWeight() {
    long total = 0;
    for (int i = 0; i < 300; i++) {
      total += 1 + i % 3;
    }
    return total;
  }

  static Map<String, Variant> variants() {
    Map<String, Variant> variants = new LinkedHashMap<>();
    for (boolean pages : new boolean[] {false, true}) {
      String prefix = pages ? "pages-" : "rows-";
      byte[] base = base(pages);
      add(variants, prefix, base, pages);
    }
    return variants;
  }

  private static void add(Map<String, Variant> v, String prefix, byte[] base, boolean pages) {
    int slot0 = (int) SketchFile.slotOffset(0);
    int slot1 = (int) SketchFile.slotOffset(1);
    int header = SketchFile.SLOTS_END;
    String opens = "opens " + baseWeight();
    SketchCommit closed = SketchFiles.recordIn(base, 1);
    SketchCommit reopened = closed.next(SketchFile.STATE_OPEN, closed.totalWeight(), 0);

    // one slot damaged: the other answers
    put(v, prefix + "slot-0-damaged", base, b -> b[slot0 + 20] ^= 0x10, opens);
    put(v, prefix + "slot-1-damaged", base, b -> b[slot1 + 20] ^= 0x10, "refused: not closed cleanly");
    put(v, prefix + "slot-0-torn-open-record", base, b -> tear(b, 0, reopened, 18), opens);
    put(v, prefix + "slot-0-torn-open-record-body-changed", base, b -> {
      tear(b, 0, reopened, 18);
      b[header + 4] += 1; // a counter grew after the open record, which a later damage tore
    }, "refused: body checksum mismatch");
    put(v, prefix + "slot-0-junk-after-its-record", base, b -> b[slot0 + 100] = 1, opens);
    put(v, prefix + "slot-1-junk-after-its-record", base, b -> b[slot1 + 4095] = 1, "refused: not closed cleanly");
    put(v, prefix + "slot-1-record-version-2", base, b -> {
      SketchFiles.fields(b).putInt(slot1 + 4, 2);
      SketchFiles.resealRecord(b, 1);
    }, "refused: not closed cleanly");
    put(v, prefix + "slot-1-zeros", base, b -> Arrays.fill(b, slot1, slot1 + 4096, (byte) 0), "refused: not closed cleanly");
    put(v, prefix + "slot-0-an-open-record-of-a-later-generation", base, b -> {
      SketchFiles.fields(b).putLong(slot0 + 8, 3);
      SketchFiles.resealRecord(b, 0);
    }, "refused: not closed cleanly");
    put(v, prefix + "slot-1-another-sketchs-record", base, b -> {
      byte[] other = SketchFiles.withRecord(b, 1, new SketchCommit(2, SketchFile.STATE_CLOSED, 17, 0x1234_5678));
      System.arraycopy(other, 0, b, 0, b.length);
    }, "refused: body checksum mismatch");

    // both slots damaged, or lying
    put(v, prefix + "both-slots-damaged", base, b -> {
      b[slot0 + 9] ^= 1;
      b[slot1 + 33] ^= (byte) 0x80;
    }, "refused: neither commit record is valid");
    put(v, prefix + "both-slots-zeros", base, b -> Arrays.fill(b, slot0, header, (byte) 0), "refused: neither commit record is valid");
    put(v, prefix + "both-slots-of-one-generation", base, b -> {
      SketchFiles.fields(b).putLong(slot1 + 8, 1);
      SketchFiles.resealRecord(b, 1);
    }, "refused: both commit records have generation 1");
    put(v, prefix + "slot-1-generation-0", base, b -> {
      SketchFiles.fields(b).putLong(slot1 + 8, 0);
      SketchFiles.resealRecord(b, 1);
    }, "refused: commit record of generation 0");
    put(v, prefix + "slot-0-negative-generation", base, b -> {
      SketchFiles.fields(b).putLong(slot0 + 8, Long.MIN_VALUE);
      SketchFiles.resealRecord(b, 0);
    }, "refused: commit record of generation " + Long.MIN_VALUE);
    put(v, prefix + "slot-1-state-2", base, b -> {
      SketchFiles.fields(b).putInt(slot1 + 24, 2);
      SketchFiles.resealRecord(b, 1);
    }, "refused: unknown state 2");
    put(v, prefix + "slot-1-negative-total-weight", base, b -> {
      SketchFiles.fields(b).putLong(slot1 + 16, -1);
      SketchFiles.resealRecord(b, 1);
    }, "refused: negative total weight");

    // the fixed fields and the file
    put(v, prefix + "fixed-fields-damaged", base, b -> b[30] ^= 4, "refused: count-min sketch checksum mismatch");
    put(v, prefix + "fixed-fields-body-length-lies", base, b -> {
      SketchFiles.fields(b).putLong(60, SketchFiles.fields(b).getLong(60) + (pages ? 512 : 8));
      SketchFiles.resealFields(b, SketchFile.VERSION);
    }, "refused: body length");
    put(v, prefix + "version-3", base, b -> {
      SketchFiles.fields(b).putInt(8, 3);
      SketchFiles.resealFields(b, SketchFile.VERSION);
    }, "refused: format version 3 is not supported");
    put(v, prefix + "version-1-over-version-2-fields", base, b -> {
      SketchFiles.fields(b).putInt(8, 1);
      SketchFiles.resealFields(b, SketchFile.VERSION);
    }, "refused: count-min sketch checksum mismatch");
    put(v, prefix + "fixed-page-padding-not-zero", base, b -> b[100] = 7, "refused: non-zero byte in the header padding at offset 100");
    v.put(prefix + "truncated-in-slot-1", variant(Arrays.copyOf(base, slot1 + 10), "refused: truncated"));
    v.put(prefix + "truncated-in-the-body", variant(Arrays.copyOf(base, base.length - 1), "refused: truncated"));
    v.put(prefix + "a-page-too-long", variant(Arrays.copyOf(base, base.length + 4096), "refused: too long"));

    // version 1: one header, rewritten in place, which a tear lost (still so for version-1 files)
    byte[] v1 = SketchFiles.version1Of(base);
    v.put(prefix + "v1-intact", variant(v1, opens));
    put(v, prefix + "v1-torn-header", v1, b -> b[60] = 1, "refused: count-min sketch checksum mismatch");
    put(v, prefix + "v1-version-3", v1, b -> {
      SketchFiles.fields(b).putInt(8, 3);
      SketchFiles.resealFields(b, SketchFile.VERSION_1);
    }, "refused: format version 3 is not supported");
  }

  /** The record of {@code slot} with its first {@code k} bytes those of {@code record}: a torn write. */
  private static void tear(byte[] b, int slot, SketchCommit record, int k) {
    ByteBuffer bytes = record.encode();
    bytes.get(b, (int) SketchFile.slotOffset(slot), k);
  }

  private static void put(Map<String, Variant> v, String name, byte[] base, Consumer<byte[]> edit, String expect) {
    byte[] copy = base.clone();
    edit.accept(copy);
    v.put(name, variant(copy, expect));
  }

  private static Variant variant(byte[] file, String expect) {
    return new Variant().with(FILE, file).note(EXPECT, expect);
  }

  public static void main(String[] args) throws IOException {
    HostileDirectories.write(Path.of(args[0]).resolve("sketch"), variants());
  }
}
