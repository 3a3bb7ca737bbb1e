package io.varve.core.blocked;

import static io.varve.core.blocked.BlockedLayout.BLOCK_BITS;
import static io.varve.core.blocked.BlockedLayout.BLOCK_WORDS;
import static io.varve.core.blocked.BlockedLayout.GROUP_BLOCKS;
import static io.varve.core.blocked.BlockedLayout.GROUP_SHIFT;
import static io.varve.core.blocked.BlockedLayout.HEADER_BITS;
import static io.varve.core.blocked.BlockedLayout.MAX_DEPTH;
import static io.varve.core.blocked.BlockedLayout.SPILLED;
import static io.varve.core.blocked.BlockedLayout.SPILLED_HEADER_BITS;
import static io.varve.core.blocked.BlockedLayout.MIDDLE;
import static io.varve.core.blocked.BlockedLayout.SUB_RANGES;
import static io.varve.core.blocked.BlockedLayout.peek;

import io.varve.core.format.CorruptStoreException;

/**
 * Checks every block of a {@link BlockedIndex} against {@link BlockedLayout} before the index is
 * used, and sums the group ranks: after it passes, every lookup's reads stay inside the index's
 * arrays whatever hash is looked up. All damage is reported as {@link CorruptStoreException}
 * naming the block. Not thread-safe; used once per index.
 */
final class BlockValidator {
  private final long[][] chunks;
  private final long[] spill;
  private final long spillBits;
  private long spilledBlocks;

  BlockValidator(long[][] chunks, long[] spill, long spillBits) {
    this.chunks = chunks;
    this.spill = spill;
    this.spillBits = spillBits;
  }

  /** Validates {@code blockCount} blocks holding {@code keyCount} keys; returns the group ranks. */
  long[] validate(long keyCount, long blockCount) {
    long[] groupBase = new long[(int) ((blockCount + GROUP_BLOCKS - 1) >>> GROUP_SHIFT)];
    long rank = 0;
    for (long block = 0; block < blockCount; block++) {
      if ((block & (GROUP_BLOCKS - 1)) == 0) {
        groupBase[(int) (block >>> GROUP_SHIFT)] = rank;
      }
      long relativeBase = rank - groupBase[(int) (block >>> GROUP_SHIFT)];
      rank += validateBlock(block, relativeBase);
      if (rank > keyCount) {
        throw new CorruptStoreException(
            "blocked index damaged: blocks up to " + block + " hold more than the " + keyCount + " keys declared");
      }
    }
    if (rank != keyCount) {
      throw new CorruptStoreException(
          "blocked index damaged: blocks hold " + rank + " keys, header declares " + keyCount);
    }
    return groupBase;
  }

  /** Blocks found spilled by {@link #validate}. */
  long spilledBlocks() {
    return spilledBlocks;
  }

  /** Validates one block whose first key has rank {@code relativeBase} in its group; returns its key count. */
  private int validateBlock(long block, long relativeBase) {
    long[] words = chunks[BlockedLayout.chunkOf(block)];
    int first = BlockedLayout.wordInChunk(block);
    long header = words[first];
    long storedBase = BlockedLayout.base(header);
    if (storedBase != relativeBase) {
      throw damaged(block, "base " + storedBase + ", expected " + relativeBase + " from the blocks before");
    }
    if (BlockedLayout.strayBits(header) != 0) {
      throw damaged(block, "header has stray bits");
    }
    int count = BlockedLayout.count(header);
    long blockStart = (long) first << 6;
    long blockEnd = blockStart + BLOCK_BITS;
    if (count != SPILLED) {
      Content content = validateContent(words, blockStart + HEADER_BITS, blockEnd, count, block);
      content.checkMiddle(BlockedLayout.midKeys(header), BlockedLayout.midNonEmpty(header), BlockedLayout.midTie(header));
      for (long bit = content.end; bit < blockEnd; bit += 64) {
        long tail = BlockedLayout.topBits((int) Math.min(64, blockEnd - bit));
        if ((peek(words, bit) & tail) != 0) {
          throw damaged(block, "padding bits are not zero");
        }
      }
      return count;
    }
    spilledBlocks++;
    long spillAt = words[first + 1];
    if (spillAt < 0 || spillAt > spillBits - SPILLED_HEADER_BITS) {
      throw damaged(block, "spill position " + spillAt + " outside the " + spillBits + "-bit spill stream");
    }
    for (int w = 2; w < BLOCK_WORDS; w++) {
      if (words[first + w] != 0) {
        throw damaged(block, "spilled block has stray bits in word " + w);
      }
    }
    long fields = peek(spill, spillAt);
    long moreFields = peek(spill, spillAt + 64);
    long spilledCount = BlockedLayout.firstSpilledField(fields);
    if (spilledCount > Integer.MAX_VALUE - 64) {
      throw damaged(block, "spilled key count " + spilledCount + " out of range");
    }
    Content content = validateContent(spill, spillAt + SPILLED_HEADER_BITS, spillBits, (int) spilledCount, block);
    content.checkMiddle(
        BlockedLayout.secondSpilledField(fields),
        BlockedLayout.firstSpilledField(moreFields),
        BlockedLayout.secondSpilledField(moreFields));
    return (int) spilledCount;
  }

  /** What {@link #validateContent} found: where the content ends, and the true middle fields. */
  private record Content(long block, long end, long midKeys, long midNonEmpty, long midTie) {
    void checkMiddle(long storedKeys, long storedNonEmpty, long storedTie) {
      if (storedKeys != midKeys || storedNonEmpty != midNonEmpty || storedTie != midTie) {
        throw damaged(
            block,
            String.format(
                "middle fields %d/%d/%d, content says %d/%d/%d",
                storedKeys, storedNonEmpty, storedTie, midKeys, midNonEmpty, midTie));
      }
    }
  }

  /**
   * Checks a block's Unary and Ties at bit {@code start} of {@code words}, which must end by bit
   * {@code limit}: 256 sub-ranges holding {@code count} keys, and one tie code per key beyond the
   * first of each sub-range, each with a depth of at most 127.
   */
  private static Content validateContent(long[] words, long start, long limit, int count, long block) {
    long pos = start;
    long keys = 0;
    long nonEmpty = 0;
    long midKeys = 0;
    long midNonEmpty = 0;
    for (int j = 0; j < SUB_RANGES; j++) {
      if (j == MIDDLE) {
        midKeys = keys;
        midNonEmpty = nonEmpty;
      }
      long run = 0;
      while (true) {
        if (pos >= limit) {
          throw damaged(block, "sub-range counts run past the block's end");
        }
        int ones = Long.numberOfLeadingZeros(~peek(words, pos));
        int usable = (int) Math.min(ones, limit - pos);
        run += usable;
        pos += usable;
        if (usable < 64) {
          break;
        }
      }
      if (pos >= limit) {
        throw damaged(block, "sub-range counts run past the block's end");
      }
      pos++;
      keys += run;
      if (run > 0) {
        nonEmpty++;
      }
      if (keys > count) {
        throw damaged(block, "sub-ranges hold more than the block's " + count + " keys");
      }
    }
    if (keys != count) {
      throw damaged(block, "sub-ranges hold " + keys + " keys, the block declares " + count);
    }
    long tiesStart = pos;
    long midTie = -1;
    long codes = 0;
    for (long tie = keys - nonEmpty; tie > 0; tie--) {
      if (codes++ == midKeys - midNonEmpty) {
        midTie = pos - tiesStart;
      }
      if (pos >= limit) {
        throw damaged(block, "tie codes run past the block's end");
      }
      int depth = BlockedLayout.depthAt(words, pos);
      if (depth > MAX_DEPTH) {
        throw damaged(block, "a tie code's depth exceeds " + MAX_DEPTH);
      }
      pos += depth + 1;
      if (pos > limit) {
        throw damaged(block, "tie codes run past the block's end");
      }
    }
    if (midTie < 0) {
      midTie = pos - tiesStart;
    }
    return new Content(block, pos, midKeys, midNonEmpty, midTie);
  }

  private static CorruptStoreException damaged(long block, String what) {
    return new CorruptStoreException("blocked index damaged in block " + block + ": " + what);
  }
}
