package dev.tern.xds.internal.lb;

/**
 * A running discovery mechanism (an EDS watch or a DNS resolution) of the cluster resolver. Each
 * reports through the callback it was made with, in the channel's synchronization context. Used
 * only in that context; not thread-safe.
 */
interface DiscoveryMechanismWatch {
  /** The last result, or null before the first. */
  Resolution resolution();

  /** Asks for a fresh resolution where that means something (DNS). */
  void refresh();

  void shutdown();
}
