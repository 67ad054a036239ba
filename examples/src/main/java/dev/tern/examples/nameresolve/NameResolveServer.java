package dev.tern.examples.nameresolve;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.examples.ExampleMain;
import dev.tern.examples.loadbalance.LoadBalancingDemo.NamedGreeter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts one greeter per port of {@code --ports=P1,P2,...} (default 50051,50052), each saying which
 * server it is, for {@link NameResolveClient} to find through the {@code example} scheme.
 */
public final class NameResolveServer {
  private NameResolveServer() {}

  /** Starts a greeter named {@code server N} on each of {@code ports} (0 for any free port). */
  public static List<Server> start(List<Integer> ports) throws IOException {
    List<Server> servers = new ArrayList<>();
    for (int port : ports) {
      String name = "server " + (servers.size() + 1);
      servers.add(ServerBuilder.forPort(port).addService(new NamedGreeter(name)).build().start());
    }
    return servers;
  }

  /** {@code java ... NameResolveServer [--ports=P1,P2,...]}. */
  public static void main(String[] args) throws IOException, InterruptedException {
    List<Integer> ports = new ArrayList<>();
    for (String port : ExampleMain.flag(args, "ports", "50051,50052").split(",")) {
      ports.add(Integer.parseInt(port));
    }
    List<Server> servers = start(ports);
    for (Server server : servers) {
      System.out.println("Greeter listening on port " + server.getPort());
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> servers.forEach(Server::shutdown)));
    for (Server server : servers) {
      server.awaitTermination(Long.MAX_VALUE, TimeUnit.DAYS);
    }
  }
}
