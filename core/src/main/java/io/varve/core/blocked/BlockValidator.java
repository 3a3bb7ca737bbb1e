package io.varve.core.blocked;

import static io.varve.core.blocked.BlockedLayout.GROUP_BLOCKS;
import static io.varve.core.blocked.BlockedLayout.GROUP_SHIFT;
import static io.varve.core.blocked.BlockedLayout.HEADER_WORD;
import static io.varve.core.blocked.BlockedLayout.INLINE_CONTENT_BITS;
import static io.varve.core.blocked.BlockedLayout.MAX_DEPTH;
import static io.varve.core.blocked.BlockedLayout.MIDDLE;
import static io.varve.core.blocked.BlockedLayout.OCCUPANCY_BITS;
import static io.varve.core.blocked.BlockedLayout.SPILLED;
import static io.varve.core.blocked.BlockedLayout.SPILLED_HEADER_WORDS;
import static io.varve.core.blocked.BlockedLayout.SPILL_AT_WORD;
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
    long header = words[first + HEADER_WORD];
    long storedBase = BlockedLayout.base(header);
    if (storedBase != relativeBase) {
      throw damaged(block, "base " + storedBase + ", expected " + relativeBase + " from the blocks before");
    }
    if (BlockedLayout.strayBits(header) != 0) {
      throw damaged(block, "header has stray bits");
    }
    int count = BlockedLayout.count(header);
    long contentStart = (long) first << 6;
    long contentLimit = contentStart + INLINE_CONTENT_BITS;
    if (count != SPILLED) {
      Content content = validateContent(words, first, contentLimit, count, block);
      content.checkMiddle(
          BlockedLayout.midOccupied(header), BlockedLayout.midExcess(header), BlockedLayout.midTie(header));
      for (long bit = content.end; bit < contentLimit; bit += 64) {
        long tail = BlockedLayout.topBits((int) Math.min(64, contentLimit - bit));
        if ((peek(words, bit) & tail) != 0) {
          throw damaged(block, "padding bits are not zero");
        }
      }
      return count;
    }
    spilledBlocks++;
    long spillAt = words[first + SPILL_AT_WORD];
    long spillWords = (spillBits + 63) >>> 6;
    if (spillAt < 0 || spillAt > spillWords - SPILLED_HEADER_WORDS) {
      throw damaged(block, "spill position " + spillAt + " outside the " + spillWords + "-word spill stream");
    }
    for (int w = 0; w < HEADER_WORD; w++) {
      if (w != SPILL_AT_WORD && words[first + w] != 0) {
        throw damaged(block, "spilled block has stray bits in word " + w);
      }
    }
    long fields = spill[(int) spillAt];
    long moreFields = spill[(int) spillAt + 1];
    long spilledCount = BlockedLayout.firstSpilledField(fields);
    if (spilledCount > Integer.MAX_VALUE - 64) {
      throw damaged(block, "spilled key count " + spilledCount + " out of range");
    }
    Content content =
        validateContent(spill, (int) spillAt + SPILLED_HEADER_WORDS, spillBits, (int) spilledCount, block);
    content.checkMiddle(
        BlockedLayout.secondSpilledField(fields),
        BlockedLayout.firstSpilledField(moreFields),
        BlockedLayout.secondSpilledField(moreFields));
    return (int) spilledCount;
  }

  /** What {@link #validateContent} found: where the content ends, and the true middle fields. */
  private record Content(long block, long end, long midOccupied, long midExcess, long midTie) {
    void checkMiddle(long storedOccupied, long storedExcess, long storedTie) {
      if (storedOccupied != midOccupied || storedExcess != midExcess || storedTie != midTie) {
        throw damaged(
            block,
            String.format(
                "middle fields %d/%d/%d, content says %d/%d/%d",
                storedOccupied, storedExcess, storedTie, midOccupied, midExcess, midTie));
      }
    }
  }

  /**
   * Checks a block's content at word {@code contentWord} of {@code words}, which must end by bit
   * {@code limit}: an Occupancy bitmap, one Excess code per non-empty sub-range, {@code count} keys
   * in all, and one tie code per key beyond the first of each sub-range, each with a depth of at
   * most 127.
   */
  private static Content validateContent(long[] words, int contentWord, long limit, int count, long block) {
    long start = (long) contentWord << 6;
    if (start + OCCUPANCY_BITS > limit) {
      throw damaged(block, "the occupancy bitmap runs past the end of the spill stream");
    }
    long pos = start + OCCUPANCY_BITS;
    long keys = 0;
    long occupied = 0;
    long midOccupied = 0;
    long midExcess = 0;
    for (int j = 0; j < SUB_RANGES; j++) {
      if ((words[contentWord + (j >>> 6)] << (j & 63)) >= 0) {
        continue;
      }
      long excess = 0;
      while (true) {
        if (pos >= limit) {
          throw damaged(block, "sub-range counts run past the block's end");
        }
        int ones = Long.numberOfLeadingZeros(~peek(words, pos));
        int usable = (int) Math.min(ones, limit - pos);
        excess += usable;
        pos += usable;
        if (usable < 64) {
          break;
        }
      }
      if (pos >= limit) {
        throw damaged(block, "sub-range counts run past the block's end");
      }
      pos++;
      occupied++;
      keys += excess + 1;
      if (j < MIDDLE) {
        midOccupied++;
        midExcess += excess;
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
    for (long tie = keys - occupied; tie > 0; tie--) {
      if (codes++ == midExcess) {
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
    return new Content(block, pos, midOccupied, midExcess, midTie);
  }

  private static CorruptStoreException damaged(long block, String what) {
    return new CorruptStoreException("blocked index damaged in block " + block + ": " + what);
  }
}
