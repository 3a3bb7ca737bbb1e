package io.varve.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Input that is not valid UTF-8 (issue 19, finding 5): {@code build} and {@code merge} stop with
 * exit 2 and name the file, the line and column of the bad byte, its byte offset, and what to do,
 * wherever the byte is: far into the file (past several refills of the decoder's buffers), on the
 * first line, on a last line without a line feed, inside a quoted CSV field that spans lines, or in
 * a JSON string. Nothing is left behind.
 */
class InvalidUtf8CommandTest extends CommandTestSupport {
  /** Lines of 17 bytes, {@code k0001\tvalue-0001\n}...: line {@code n} starts at byte 17 (n - 1). */
  private static byte[] tsvLines(int lines, int badLine, int badColumn) {
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    for (int i = 1; i <= lines; i++) {
      byte[] line = String.format("k%04d\tvalue-%04d\n", i, i).getBytes(StandardCharsets.US_ASCII);
      if (i == badLine) {
        line[badColumn - 1] = (byte) 0xFF;
      }
      text.writeBytes(line);
    }
    return text.toByteArray();
  }

  private Path writeBytes(String name, byte[] bytes) throws IOException {
    return Files.write(temp.resolve(name), bytes);
  }

  /** Builds from {@code input}; checks exit 2, the message's fragments, and that no store is left. */
  private void assertRejected(Path input, String... fragments) throws IOException {
    Path store = temp.resolve("store");
    assertEquals(2, run("build", input.toString(), "--out", store.toString()), stderr());
    String message = stderr();
    assertTrue(message.startsWith("varve build: " + input + ": line "), message);
    for (String fragment : fragments) {
      assertTrue(message.contains(fragment), "expected '" + fragment + "' in: " + message);
    }
    assertTrue(message.contains("not valid UTF-8") && message.contains("convert"), message);
    assertFalse(Files.exists(store));
    assertNoLeftovers();
  }

  @Test
  void farIntoATsvFileTheLineIsExact() throws IOException {
    // 10,000 lines of 17 bytes: the bad byte sits well past the first 64 KiB of input.
    Path input = writeBytes("far.tsv", tsvLines(10_000, 5000, 3));
    assertRejected(input, "line 5000, column 3:", "byte 0xFF at byte offset " + (17 * 4999 + 2));
  }

  @Test
  void onTheFirstLine() throws IOException {
    assertRejected(writeBytes("first.tsv", tsvLines(3, 1, 1)), "line 1, column 1:", "byte offset 0");
  }

  @Test
  void onALastLineWithoutALineFeed() throws IOException {
    byte[] bytes = tsvLines(200, 200, 14);
    byte[] cut = java.util.Arrays.copyOf(bytes, bytes.length - 1);
    assertRejected(writeBytes("last.tsv", cut), "line 200, column 14:", "byte offset " + (17 * 199 + 13));
  }

  @Test
  void aMultiByteSequenceCutShortByTheEndOfTheInput() throws IOException {
    // "é" is C3 A9: the input ends after C3.
    byte[] bytes = "a\t1\nb\tcaf\u00e9".getBytes(StandardCharsets.UTF_8);
    assertRejected(writeBytes("cut.tsv", java.util.Arrays.copyOf(bytes, bytes.length - 1)),
        "line 2, column 6:", "byte 0xC3 at byte offset 9");
  }

  @Test
  void insideAQuotedCsvFieldThatSpansLines() throws IOException {
    byte[] bytes = "k1,v1\nk2,\"two\nli\u00e9nes\"\nk3,v3\n".getBytes(StandardCharsets.ISO_8859_1);
    // The record starts on line 2; the Latin-1 byte 0xE9 is on line 3, column 3.
    assertRejected(writeBytes("quoted.csv", bytes), "line 3, column 3:", "byte 0xE9 at byte offset 16");
  }

  @Test
  void inAJsonString() throws IOException {
    StringBuilder text = new StringBuilder();
    for (int i = 1; i <= 6000; i++) {
      text.append("{\"key\":\"k").append(i).append("\",\"value\":\"").append(i == 4321 ? "caf\u00e9" : "v").append("\"}\n");
    }
    byte[] bytes = text.toString().getBytes(StandardCharsets.ISO_8859_1);
    int offset = text.indexOf("caf\u00e9") + 3;
    int lineStart = text.lastIndexOf("\n", offset) + 1;
    assertRejected(writeBytes("bad.jsonl", bytes), "line 4321, column " + (offset - lineStart + 1) + ":", "byte offset " + offset);
  }

  @Test
  void inAMergeBatchTheFileIsNamed() throws IOException {
    Path base = temp.resolve("base");
    assertEquals(0, run("build", write("base.tsv", "a\t1\n").toString(), "--out", base.toString()), stderr());
    Path upserts = writeBytes("upserts.tsv", tsvLines(9000, 8765, 7));
    Path merged = temp.resolve("merged");
    assertEquals(2, run("merge", base.toString(), "--out", merged.toString(), "--upserts", upserts.toString()), stderr());
    assertTrue(stderr().startsWith("varve merge: " + upserts + ": line 8765, column 7:"), stderr());
    assertTrue(stderr().contains("byte offset " + (17 * 8764 + 6)), stderr());
    assertFalse(Files.exists(merged));
    assertNoLeftovers();
  }
}
