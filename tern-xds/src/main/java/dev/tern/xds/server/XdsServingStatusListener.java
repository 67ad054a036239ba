package dev.tern.xds.server;

/**
 * Hears an xDS-enabled server move between SERVING and NOT_SERVING (A36). Called from the xDS
 * client's synchronization context, once per change (and once when the server cannot get its first
 * configuration): implementations must return quickly and must not block.
 */
public interface XdsServingStatusListener {
  /** The server has a valid Listener and serves new connections with it. */
  void onServing();

  /**
   * The server does not serve: its Listener does not exist (any more), is not for its address, or
   * has not arrived because of {@code cause}. Connections are drained; new ones are refused.
   */
  void onNotServing(Throwable cause);
}
