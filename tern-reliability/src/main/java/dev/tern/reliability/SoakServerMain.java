package dev.tern.reliability;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The soak's server in a JVM of its own ({@link SoakServer} starts it): {@code SoakServerMain PEER
 * HOST [MAX_CALLS [ADAPTIVE]]} starts the harness's server of {@code PEER} ({@code tern} or {@code
 * grpc-java}; Tern's with {@code maxConcurrentCalls} = {@code MAX_CALLS} when given, and its
 * adaptive concurrency limit on unless {@code ADAPTIVE} is {@code false}) on a free port of {@code
 * HOST}, prints {@value #READY} and the port, then answers each line {@value #SAMPLE} on its
 * standard input with {@value #HEAP} and its heap in bytes after a full GC. It stops its server and
 * exits when its standard input ends (the parent closed it or died).
 */
public final class SoakServerMain {
  static final String READY = "soak server listening on port ";
  static final String SAMPLE = "sample";
  static final String HEAP = "heap ";

  private SoakServerMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2 && !((args.length == 3 || args.length == 4) && args[0].equals("tern"))) {
      System.err.println(
          "usage: SoakServerMain tern|grpc-java HOST, or SoakServerMain tern HOST MAX_CALLS"
              + " [true|false (the adaptive limit)]");
      System.exit(2);
    }
    Peer peer =
        args.length == 2
            ? SoakRun.peer(args[0])
            : new TernPeer(
                Integer.parseInt(args[2]), args.length == 3 || Boolean.parseBoolean(args[3]));
    List<InetSocketAddress> addresses = peer.startServers(List.of(args[1]));
    System.out.println(READY + addresses.get(0).getPort());
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (line.equals(SAMPLE)) {
        System.out.println(HEAP + ResourceSample.heapAfterGc());
        System.out.flush();
      }
    }
    peer.stopServers(Duration.ofSeconds(5));
  }
}
