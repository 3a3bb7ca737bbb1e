package io.varve.core.ect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HashFeedTest {
  @Test
  void acceptsIncreasingUnsignedHashesUpToTheDeclaredCount() {
    HashFeed feed = new HashFeed(4, true);
    feed.accept(1, 5);
    feed.accept(1, -1); // lo compares unsigned: -1 is the largest
    feed.accept(-2, 0); // so does hi
    feed.accept(-1, 0);
    assertEquals(4, feed.accepted());
    IllegalStateException tooMany = assertThrows(IllegalStateException.class, () -> feed.accept(-1, 1));
    assertTrue(tooMany.getMessage().contains("more than the declared 4"), tooMany.getMessage());
    feed.finish();
    assertThrows(IllegalStateException.class, feed::finish);
  }

  @Test
  void refusesDuplicatesAndHashesOutOfOrder() {
    HashFeed feed = new HashFeed(10, false);
    feed.accept(7, 7);
    DuplicateHashException duplicate = assertThrows(DuplicateHashException.class, () -> feed.accept(7, 7));
    assertEquals(1, duplicate.index());
    IllegalArgumentException backwards = assertThrows(IllegalArgumentException.class, () -> feed.accept(7, 6));
    assertTrue(backwards.getMessage().contains("hashes do not come in order"), backwards.getMessage());
    assertEquals(1, feed.accepted());
  }

  @Test
  void anExactFeedFinishesOnlyAfterTheDeclaredCountAndAnUpperBoundAfterAtMostThat() {
    HashFeed exact = new HashFeed(2, true);
    exact.accept(0, 1);
    IllegalStateException early = assertThrows(IllegalStateException.class, exact::finish);
    assertTrue(early.getMessage().contains("declared 2 hashes but added 1"), early.getMessage());
    HashFeed upTo = new HashFeed(2, false);
    upTo.accept(0, 1);
    upTo.finish();
    assertThrows(IllegalStateException.class, () -> upTo.accept(0, 2));
    assertThrows(IllegalArgumentException.class, () -> new HashFeed(-1, true));
  }
}
