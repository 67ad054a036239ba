package dev.tern.netty.balancing;

import dev.tern.Server;
import dev.tern.netty.NettyServerBuilder;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The main class of a Tern server in a process of its own, so a test can kill it as a crash would
 * (SIGKILL: no GOAWAY, no FIN from the application, just the kernel closing its sockets). Started
 * by {@link ServerProcess} with {@code HOST PORT}; serves {@link ServerNameService} named {@code
 * HOST} on HOST:PORT (plaintext) and prints one line: {@code ready} once it listens, {@code
 * bind-failed ...} (exit code 2) if the address is taken. It stops by itself when its standard
 * input closes, so it never outlives the test JVM that started it.
 */
public final class ServerProcessMain {
  static final String READY = "ready";
  static final String BIND_FAILED = "bind-failed";

  private ServerProcessMain() {}

  public static void main(String[] args) throws Exception {
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
            .addService(ServerNameService.definition(host))
            .build();
    try {
      server.start();
    } catch (BindException e) {
      System.out.println(BIND_FAILED + " " + e.getMessage());
      System.out.flush();
      System.exit(2);
    }
    System.out.println(READY);
    System.out.flush();
    while (System.in.read() != -1) {
      // Nothing is sent; end of input means the parent is gone or done with us.
    }
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
    System.exit(0);
  }
}
