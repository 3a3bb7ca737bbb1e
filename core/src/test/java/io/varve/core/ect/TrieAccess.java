package io.varve.core.ect;

import io.varve.core.bits.LongBigArray;

/** Test access to an index's trie words, to damage them in memory. */
final class TrieAccess {
  private TrieAccess() {}

  static LongBigArray words(EctIndex index) {
    return (LongBigArray) index.trieWords();
  }
}
