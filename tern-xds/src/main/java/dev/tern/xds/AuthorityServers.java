package dev.tern.xds;

import java.util.List;

/**
 * One authority's control planes in priority order (A47: the authority's own {@code xds_servers},
 * else the top-level ones; old-style resource names use the top-level ones) and how far down that
 * list the client has fallen back (A71): servers {@code 0..current} are in use, the last of them
 * the one whose resources the client takes; the ones above it are still asked, so that the first
 * response from one of them makes the client go back up.
 *
 * <p>Not thread-safe: used only in the client's synchronization context.
 */
final class AuthorityServers {
  /** What logs call the authority: its name, or "(top level)" for old-style names. */
  final String label;

  private final List<Bootstrap.ServerInfo> servers;
  private int current;

  /**
   * @param fallback whether servers after the first are used ({@code
   *     GRPC_EXPERIMENTAL_XDS_FALLBACK}); without it only the first is
   */
  AuthorityServers(String label, List<Bootstrap.ServerInfo> servers, boolean fallback) {
    if (servers.isEmpty()) {
      throw new IllegalArgumentException(label + ": no xds_servers");
    }
    this.label = label;
    this.servers = fallback ? List.copyOf(servers) : List.of(servers.get(0));
  }

  /** The server whose resources are taken now. */
  Bootstrap.ServerInfo current() {
    return servers.get(current);
  }

  /** The servers asked now: the current one and every one of higher priority. */
  List<Bootstrap.ServerInfo> inUse() {
    return servers.subList(0, current + 1);
  }

  /** Moves to the next server; false if the current one is the last. */
  boolean fallBack() {
    if (current + 1 >= servers.size()) {
      return false;
    }
    current++;
    return true;
  }

  /**
   * {@code server} answered: if it has a higher priority than the current one, it becomes current
   * (the ones below it are no longer in use) and this returns true.
   */
  boolean answeredBy(Bootstrap.ServerInfo server) {
    int index = servers.indexOf(server);
    if (index < 0 || index >= current) {
      return false;
    }
    current = index;
    return true;
  }
}
