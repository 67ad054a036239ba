package dev.tern.xds;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Real Tern servers (Netty, plaintext), one per loopback address given, each on a port the OS picks
 * and each answering {@link #NAME} with its own address: what the xDS tests balance over. Not
 * thread-safe; one test thread starts and closes it.
 */
final class Backends implements AutoCloseable {
  /** The backends' one method: an empty request, the backend's host as the response. */
  static final MethodDescriptor<String, String> NAME =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("tern.test.Backend/Name")
          .setRequestMarshaller(Utf8.INSTANCE)
          .setResponseMarshaller(Utf8.INSTANCE)
          .build();

  private final List<Server> servers = new ArrayList<>();
  private final AtomicInteger calls = new AtomicInteger();
  private final List<String> hosts;
  private final Set<String> failing = ConcurrentHashMap.newKeySet();

  private Backends(List<String> hosts) {
    this.hosts = List.copyOf(hosts);
  }

  /** Starts one backend on each of {@code hosts} (e.g. 127.0.0.2). */
  static Backends start(String... hosts) throws IOException {
    Backends backends = new Backends(List.of(hosts));
    try {
      for (String host : hosts) {
        ServerServiceDefinition service =
            ServerServiceDefinition.builder("tern.test.Backend")
                .addMethod(
                    NAME,
                    ServerCalls.asyncUnaryCall(
                        (request, response) -> {
                          backends.calls.incrementAndGet();
                          if (backends.failing.contains(host)) {
                            response.onError(
                                Status.UNAVAILABLE
                                    .withDescription(host + " fails on purpose")
                                    .asRuntimeException());
                            return;
                          }
                          response.onNext(host);
                          response.onCompleted();
                        }))
                .build();
        backends.servers.add(
            NettyServerBuilder.forAddress(new InetSocketAddress(host, 0))
                .addService(service)
                .build()
                .start());
      }
      return backends;
    } catch (IOException | RuntimeException e) {
      backends.close();
      throw e;
    }
  }

  /** Makes the backend on {@code host} answer every call UNAVAILABLE, or normally again. */
  void failing(String host, boolean fail) {
    if (fail) {
      failing.add(host);
    } else {
      failing.remove(host);
    }
  }

  /** How many calls the backends have answered, all together. */
  int calls() {
    return calls.get();
  }

  String host(int i) {
    return hosts.get(i);
  }

  int port(int i) {
    return servers.get(i).getPort();
  }

  int size() {
    return servers.size();
  }

  /** Stops backend {@code i} at once (its connections close; new ones are refused). */
  void stop(int i) throws InterruptedException {
    Server server = servers.get(i);
    server.shutdownNow();
    server.awaitTermination(10, TimeUnit.SECONDS);
  }

  /** One call of {@link #NAME} on {@code channel}: the host of the backend that answered. */
  static String call(Channel channel) {
    return ClientCalls.blockingUnaryCall(
        channel, NAME, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "");
  }

  @Override
  public void close() {
    for (Server server : servers) {
      server.shutdownNow();
    }
    for (Server server : servers) {
      try {
        server.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private enum Utf8 implements MethodDescriptor.Marshaller<String> {
    INSTANCE;

    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
