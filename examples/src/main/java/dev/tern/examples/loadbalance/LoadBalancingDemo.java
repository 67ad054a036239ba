package dev.tern.examples.loadbalance;

import dev.tern.Channel;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.StatusRuntimeException;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloReply;
import dev.tern.examples.helloworld.HelloRequest;
import dev.tern.stub.StreamObserver;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * One channel, several servers: starts three greeters on free ports (unless {@code --target} names
 * servers that run elsewhere), then greets through one channel whose {@code round_robin} policy
 * sends each call to the next server, and prints which server answered each call.
 *
 * <pre>
 * java ... LoadBalancingDemo [--policy=round_robin|pick_first|least_request] [--calls=N]
 *                            [--target=TARGET]
 * </pre>
 *
 * <p>Without {@code --target}, the target lists the three servers it started: {@code
 * ipv4:127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3}. Any target works, e.g. {@code
 * dns://127.0.0.1:5353/greeter.example:50051} to ask a given DNS server for the servers' addresses
 * (every A and AAAA record is a server).
 */
public final class LoadBalancingDemo {
  private LoadBalancingDemo() {}

  /** A greeter that says which server it is. Stateless; thread-safe. */
  public static final class NamedGreeter extends GreeterTern.GreeterImplBase {
    private final String name;

    /** A greeter whose replies end with {@code (from NAME)}. */
    public NamedGreeter(String name) {
      this.name = name;
    }

    @Override
    public void sayHello(HelloRequest request, StreamObserver<HelloReply> responseObserver) {
      responseObserver.onNext(
          HelloReply.newBuilder()
              .setMessage("Hello, " + request.getName() + "! (from " + name + ")")
              .build());
      responseObserver.onCompleted();
    }
  }

  /**
   * Greets {@code calls} times through {@code target} with {@code policy}.
   *
   * @return how many calls each server answered, by the name in its reply
   */
  public static Map<String, Integer> greet(String target, String policy, int calls)
      throws InterruptedException {
    ManagedChannel channel =
        ManagedChannelBuilder.forTarget(target)
            .usePlaintext()
            .defaultLoadBalancingPolicy(policy)
            .build();
    try {
      return greet(channel, calls);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /**
   * Greets {@code calls} times through {@code channel}, printing each reply.
   *
   * @return how many calls each {@link NamedGreeter} answered, by its name
   */
  public static Map<String, Integer> greet(Channel channel, int calls) {
    Map<String, Integer> answered = new TreeMap<>();
    GreeterTern.GreeterBlockingStub stub = GreeterTern.newBlockingStub(channel);
    for (int i = 1; i <= calls; i++) {
      String reply =
          stub.withDeadlineAfter(5, TimeUnit.SECONDS)
              .sayHello(HelloRequest.newBuilder().setName("call " + i).build())
              .getMessage();
      System.out.println(reply);
      String server = reply.substring(reply.indexOf("(from ") + 6, reply.length() - 1);
      answered.merge(server, 1, Integer::sum);
    }
    return answered;
  }

  /** Starts {@code count} named greeters on free ports. */
  public static List<Server> startServers(int count) throws IOException {
    List<Server> servers = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      Server server = ServerBuilder.forPort(0).addService(new NamedGreeter("server " + i)).build();
      servers.add(server.start());
    }
    return servers;
  }

  /** The {@code ipv4:} target listing {@code servers} on 127.0.0.1. */
  public static String ipv4Target(List<Server> servers) {
    StringBuilder target = new StringBuilder("ipv4:");
    for (Server server : servers) {
      target.append(target.length() > 5 ? "," : "").append("127.0.0.1:").append(server.getPort());
    }
    return target.toString();
  }

  /** See the class comment. */
  public static void main(String[] args) throws IOException, InterruptedException {
    String policy = "round_robin";
    String target = null;
    int calls = 9;
    for (String arg : args) {
      if (arg.startsWith("--policy=")) {
        policy = arg.substring("--policy=".length());
      } else if (arg.startsWith("--target=")) {
        target = arg.substring("--target=".length());
      } else if (arg.startsWith("--calls=")) {
        calls = Integer.parseInt(arg.substring("--calls=".length()));
      } else {
        System.err.println("unknown flag " + arg + "; see the class comment for the flags");
        System.exit(2);
      }
    }
    List<Server> servers = target == null ? startServers(3) : List.of();
    try {
      String used = target != null ? target : ipv4Target(servers);
      System.out.println("Calling " + used + " with " + policy);
      System.out.println("Calls per server: " + greet(used, policy, calls));
    } catch (StatusRuntimeException e) {
      System.err.println("SayHello failed: " + e.getStatus());
      System.exit(1);
    } finally {
      for (Server server : servers) {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }
}
