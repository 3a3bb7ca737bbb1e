package io.varve.benchmarks.peers;

import java.util.List;
import java.util.Locale;

/** The systems of the comparison, Varve first. Stateless; thread-safe. */
public final class Peers {
  private static final List<Peer> ALL =
      List.of(VarvePeer.MAPPED, new MphTablePeer(), new Sux4jPeer(), new PalDbPeer(), new SparkeyPeer(), new RocksDbPeer());

  /**
   * Layouts measured beside the peers but not in the comparison: issue 23's {@link PagedPrototype},
   * and Varve's paged stores ({@link VarvePeer#PAGED}) until they become its default.
   */
  private static final List<Peer> PROTOTYPES = List.of(new PagedPrototype(), VarvePeer.PAGED);

  private Peers() {}

  /** The prototypes {@link #byName} also knows, which the comparison does not run. */
  public static List<Peer> prototypes() {
    return PROTOTYPES;
  }

  /** Every system, Varve first. */
  public static List<Peer> all() {
    return ALL;
  }

  /** The system called {@code name} (case-insensitive), or one of their {@link Peer#warmVariants}. */
  public static Peer byName(String name) {
    for (Peer peer : java.util.stream.Stream.concat(ALL.stream(), PROTOTYPES.stream()).toList()) {
      if (peer.name().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
        return peer;
      }
      for (Peer variant : peer.warmVariants()) {
        if (variant.name().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
          return variant;
        }
      }
    }
    throw new IllegalArgumentException(
        "no system called '" + name + "'; known: " + ALL.stream().map(Peer::name).toList());
  }
}
