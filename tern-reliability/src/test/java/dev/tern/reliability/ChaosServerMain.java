package dev.tern.reliability;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * A Tern server of the harness ({@link TernPeer}) in a JVM of its own, for {@link
 * FrozenServerTest}: listens on a free port of the host given as the only argument, prints {@value
 * #READY} and the port, and serves until it is killed.
 */
public final class ChaosServerMain {
  static final String READY = "chaos server listening on port ";

  private ChaosServerMain() {}

  public static void main(String[] args) throws Exception {
    List<InetSocketAddress> addresses = new TernPeer().startServers(List.of(args[0]));
    System.out.println(READY + addresses.get(0).getPort());
    System.out.flush();
    Thread.currentThread().join();
  }
}
