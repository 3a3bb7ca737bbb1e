package io.varve.benchmarks.peers;

import java.util.List;
import java.util.Locale;

/** The systems of the comparison, Varve first. Stateless; thread-safe. */
public final class Peers {
  private static final List<Peer> ALL =
      List.of(new VarvePeer(), new MphTablePeer(), new Sux4jPeer(), new PalDbPeer(), new SparkeyPeer(), new RocksDbPeer());

  private Peers() {}

  /** Every system, Varve first. */
  public static List<Peer> all() {
    return ALL;
  }

  /** The system called {@code name} (case-insensitive). */
  public static Peer byName(String name) {
    for (Peer peer : ALL) {
      if (peer.name().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
        return peer;
      }
    }
    throw new IllegalArgumentException(
        "no system called '" + name + "'; known: " + ALL.stream().map(Peer::name).toList());
  }
}
