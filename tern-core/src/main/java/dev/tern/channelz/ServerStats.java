package dev.tern.channelz;

import java.util.List;
import java.util.Objects;

/**
 * A snapshot of a server.
 *
 * @param calls the calls it served
 * @param listenSockets its listening sockets
 * @param sockets its accepted connections that are still open
 */
public record ServerStats(CallStats calls, List<Ref> listenSockets, List<Ref> sockets) {
  /** Checks the arguments and copies the lists. */
  public ServerStats {
    Objects.requireNonNull(calls, "calls");
    listenSockets = List.copyOf(listenSockets);
    sockets = List.copyOf(sockets);
  }
}
