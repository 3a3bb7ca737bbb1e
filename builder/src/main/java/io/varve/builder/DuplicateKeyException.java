package io.varve.builder;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Thrown by {@link StoreBuilder#build()} under {@link DuplicatePolicy#FAIL} when a key was put
 * more than once. The message shows the key as text when it is valid UTF-8 and as hex otherwise.
 * Immutable and thread-safe.
 */
public final class DuplicateKeyException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private static final int SHOWN_BYTES = 256;

  private final byte[] key;

  DuplicateKeyException(byte[] key) {
    super("duplicate key " + describe(key) + " (use DuplicatePolicy.LAST_WINS to keep the last value)");
    this.key = key.clone();
  }

  /** A copy of the duplicated key. */
  public byte[] key() {
    return key.clone();
  }

  /** The key as quoted UTF-8 text if it decodes, else as hex; long keys are cut. */
  static String describe(byte[] key) {
    int shown = Math.min(key.length, SHOWN_BYTES);
    String suffix = shown < key.length ? "... (" + key.length + " bytes)" : "";
    try {
      String text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(key, 0, shown))
              .toString();
      if (text.codePoints().noneMatch(Character::isISOControl)) {
        return "\"" + text + "\"" + suffix;
      }
    } catch (CharacterCodingException notText) {
      // fall through to hex
    }
    StringBuilder hex = new StringBuilder("0x");
    for (int i = 0; i < shown; i++) {
      hex.append(String.format("%02x", key[i]));
    }
    return hex + suffix;
  }
}
