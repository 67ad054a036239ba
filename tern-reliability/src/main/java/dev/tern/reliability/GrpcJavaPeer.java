package dev.tern.reliability;

import io.grpc.CallOptions;
import io.grpc.EquivalentAddressGroup;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusOr;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.internal.JsonParser;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * grpc-java's (1.79, its shaded Netty transport) servers and client for the harness, the reference
 * beside Tern: {@link TernPeer} line by line on grpc-java's API (the same names in other packages),
 * so that the two run exactly the same calls.
 *
 * <p>Servers are started and stopped by one thread; the client is thread-safe.
 */
public final class GrpcJavaPeer implements Peer {
  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try (InputStream in = stream) {
            return in.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  private static final MethodDescriptor<byte[], byte[]> UNARY =
      method(ChaosService.UNARY, MethodType.UNARY);
  private static final MethodDescriptor<byte[], byte[]> SERVER_STREAM =
      method(ChaosService.SERVER_STREAM, MethodType.SERVER_STREAMING);
  private static final MethodDescriptor<byte[], byte[]> CLIENT_STREAM =
      method(ChaosService.CLIENT_STREAM, MethodType.CLIENT_STREAMING);
  private static final MethodDescriptor<byte[], byte[]> BIDI =
      method(ChaosService.BIDI, MethodType.BIDI_STREAMING);
  private static final MethodDescriptor<byte[], byte[]> HOLD =
      method(ChaosService.HOLD, MethodType.SERVER_STREAMING);
  private static final MethodDescriptor<byte[], byte[]> WORK =
      method(ChaosService.WORK, MethodType.UNARY);
  private static final MethodDescriptor<byte[], byte[]> BLOCK =
      method(ChaosService.BLOCK, MethodType.UNARY);
  private static final MethodDescriptor<byte[], byte[]> WORK_STREAM =
      method(ChaosService.WORK_STREAM, MethodType.SERVER_STREAMING);

  private final List<Server> servers = new ArrayList<>();
  private final List<InetSocketAddress> addresses = new ArrayList<>();

  /** grpc-java's servers and client with the harness's settings. */
  public GrpcJavaPeer() {}

  @Override
  public String name() {
    return "grpc-java";
  }

  @Override
  public List<InetSocketAddress> startServers(List<String> hosts) throws IOException {
    List<InetSocketAddress> started = new ArrayList<>();
    for (String host : hosts) {
      Server server = startServer(new InetSocketAddress(host, 0));
      servers.add(server);
      started.add((InetSocketAddress) server.getListenSockets().get(0));
    }
    addresses.addAll(started);
    return started;
  }

  /**
   * Starts one server of the harness on {@code address} (port 0: a free one), serving the health
   * service too, with {@code interceptors} on the harness service.
   */
  private static Server startServer(InetSocketAddress address, ServerInterceptor... interceptors)
      throws IOException {
    HealthStatusManager health = new HealthStatusManager();
    health.setStatus(ChaosService.SERVICE, ServingStatus.SERVING);
    return NettyServerBuilder.forAddress(address)
        .addService(ServerInterceptors.intercept(service(), interceptors))
        .addService(health.getHealthService())
        .permitKeepAliveTime(ChaosService.KEEPALIVE_TIME_SECONDS, TimeUnit.SECONDS)
        .maxInboundMessageSize(2 * CallKind.LARGE)
        .build()
        .start();
  }

  @Override
  public void stopServers(Duration timeout) throws InterruptedException {
    for (Server server : servers) {
      server.shutdownNow();
    }
    for (Server server : servers) {
      server.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
    servers.clear();
    addresses.clear();
  }

  @Override
  public boolean drainServer(int index, Duration deadline) throws InterruptedException {
    Server server = servers.get(index);
    server.shutdown();
    if (server.awaitTermination(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
      return true;
    }
    server.shutdownNow();
    server.awaitTermination(deadline.toMillis(), TimeUnit.MILLISECONDS);
    return false;
  }

  @Override
  public void restartServer(int index, CountDownLatch served) throws IOException {
    servers.set(index, startServer(addresses.get(index), countingCalls(served)));
  }

  /** An interceptor that counts {@code served} down once per call the server starts. */
  private static ServerInterceptor countingCalls(CountDownLatch served) {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        served.countDown();
        return next.startCall(call, headers);
      }
    };
  }

  @Override
  // nameResolverFactory is deprecated in favour of the global NameResolverRegistry, but grpc-java
  // has no ipv4: resolver, its builder no per-channel registry, and a global registration would
  // change every grpc-java channel of the JVM.
  @SuppressWarnings("deprecation")
  public Client newClient(List<InetSocketAddress> servers) {
    String target = FixedAddresses.SCHEME + ":///chaos";
    ManagedChannel channel =
        NettyChannelBuilder.forTarget(target)
            .nameResolverFactory(new FixedAddresses(servers))
            .usePlaintext()
            .defaultServiceConfig(serviceConfig())
            .keepAliveTime(ChaosService.KEEPALIVE_TIME_SECONDS, TimeUnit.SECONDS)
            .keepAliveTimeout(ChaosService.KEEPALIVE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .maxInboundMessageSize(2 * CallKind.LARGE)
            .build();
    return new GrpcJavaClient(channel);
  }

  /** {@link ChaosService#SERVICE_CONFIG} as grpc-java's own JSON parser reads it. */
  @SuppressWarnings("unchecked")
  private static Map<String, ?> serviceConfig() {
    try {
      return (Map<String, ?>) JsonParser.parse(ChaosService.SERVICE_CONFIG);
    } catch (IOException e) {
      throw new IllegalStateException("ChaosService.SERVICE_CONFIG is not JSON", e);
    }
  }

  private static MethodDescriptor<byte[], byte[]> method(String name, MethodType type) {
    return MethodDescriptor.<byte[], byte[]>newBuilder(BYTES, BYTES)
        .setType(type)
        .setFullMethodName(ChaosService.fullName(name))
        .build();
  }

  private static ServerServiceDefinition service() {
    return ServerServiceDefinition.builder(ChaosService.SERVICE)
        .addMethod(
            UNARY,
            ServerCalls.asyncUnaryCall(
                (request, responses) -> {
                  responses.onNext(request);
                  responses.onCompleted();
                }))
        .addMethod(
            SERVER_STREAM,
            ServerCalls.asyncServerStreamingCall(
                (request, responses) -> {
                  for (int i = 0; i < CallKind.STREAM_MESSAGES; i++) {
                    responses.onNext(request);
                  }
                  responses.onCompleted();
                }))
        .addMethod(
            CLIENT_STREAM,
            ServerCalls.asyncClientStreamingCall(
                (StreamObserver<byte[]> responses) ->
                    new StreamObserver<byte[]>() {
                      private byte[] last = new byte[0];

                      @Override
                      public void onNext(byte[] value) {
                        last = value;
                      }

                      @Override
                      public void onError(Throwable t) {}

                      @Override
                      public void onCompleted() {
                        responses.onNext(last);
                        responses.onCompleted();
                      }
                    }))
        .addMethod(
            BIDI,
            ServerCalls.asyncBidiStreamingCall(
                (StreamObserver<byte[]> responses) ->
                    new StreamObserver<byte[]>() {
                      @Override
                      public void onNext(byte[] value) {
                        responses.onNext(value);
                      }

                      @Override
                      public void onError(Throwable t) {}

                      @Override
                      public void onCompleted() {
                        responses.onCompleted();
                      }
                    }))
        .addMethod(
            HOLD,
            ServerCalls.asyncServerStreamingCall((request, responses) -> responses.onNext(request)))
        .addMethod(
            WORK,
            ServerCalls.asyncUnaryCall(
                (request, responses) -> {
                  responses.onNext(ChaosService.work(request));
                  responses.onCompleted();
                }))
        // On grpc-java's default executor (a cached thread pool), as a user of it would.
        .addMethod(
            BLOCK,
            ServerCalls.asyncUnaryCall(
                (request, responses) -> {
                  try {
                    responses.onNext(ChaosService.block(request));
                    responses.onCompleted();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    responses.onError(
                        Status.CANCELLED.withDescription("interrupted").asException());
                  }
                }))
        .addMethod(
            WORK_STREAM,
            ServerCalls.asyncServerStreamingCall(
                (request, responses) -> {
                  ServerCallStreamObserver<byte[]> stream =
                      (ServerCallStreamObserver<byte[]>) responses;
                  if (ChaosService.workStream(request, stream::isCancelled, stream::onNext)) {
                    stream.onCompleted();
                  }
                }))
        .build();
  }

  /**
   * Resolves any target of its scheme to a fixed list of addresses, one group per server (as Tern's
   * {@code ipv4:} resolver does). Immutable, so thread-safe.
   */
  private static final class FixedAddresses extends NameResolverProvider {
    static final String SCHEME = "chaos-fixed";

    private final List<EquivalentAddressGroup> groups;

    FixedAddresses(List<InetSocketAddress> servers) {
      this.groups = servers.stream().map(EquivalentAddressGroup::new).toList();
    }

    @Override
    protected boolean isAvailable() {
      return true;
    }

    @Override
    protected int priority() {
      return 5;
    }

    @Override
    public String getDefaultScheme() {
      return SCHEME;
    }

    @Override
    public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
      if (!SCHEME.equals(targetUri.getScheme())) {
        return null;
      }
      return new NameResolver() {
        @Override
        public String getServiceAuthority() {
          return "chaos";
        }

        @Override
        public void start(Listener2 listener) {
          listener.onResult(
              ResolutionResult.newBuilder()
                  .setAddressesOrError(StatusOr.fromValue(groups))
                  .build());
        }

        @Override
        public void shutdown() {}
      };
    }
  }

  /** The client: each call completes its future with its status code's name. */
  private static final class GrpcJavaClient implements Client {
    private final ManagedChannel channel;

    GrpcJavaClient(ManagedChannel channel) {
      this.channel = channel;
    }

    @Override
    public CompletableFuture<CallEnd> call(CallKind kind) {
      CompletableFuture<CallEnd> result = new CompletableFuture<>();
      CallOptions options =
          CallOptions.DEFAULT.withDeadlineAfter(kind.deadline().toMillis(), TimeUnit.MILLISECONDS);
      Responses responses = new Responses(result, kind == CallKind.CANCEL);
      byte[] request = ChaosService.request(kind);
      switch (kind) {
        case UNARY, UNARY_1MIB ->
            ClientCalls.asyncUnaryCall(channel.newCall(UNARY, options), request, responses);
        case SERVER_STREAM ->
            ClientCalls.asyncServerStreamingCall(
                channel.newCall(SERVER_STREAM, options), request, responses);
        case CANCEL, DEADLINE ->
            ClientCalls.asyncServerStreamingCall(
                channel.newCall(HOLD, options), request, responses);
        case CLIENT_STREAM ->
            sendAll(
                ClientCalls.asyncClientStreamingCall(
                    channel.newCall(CLIENT_STREAM, options), responses),
                request);
        case BIDI_STREAM ->
            sendAll(
                ClientCalls.asyncBidiStreamingCall(channel.newCall(BIDI, options), responses),
                request);
      }
      return result;
    }

    @Override
    public CompletableFuture<CallEnd> work(ChaosService.WorkCall call, Duration deadline) {
      CompletableFuture<CallEnd> result = new CompletableFuture<>();
      CallOptions options =
          CallOptions.DEFAULT.withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS);
      Responses responses = new Responses(result, false);
      switch (call) {
        case STANDARD, CHEAP, EXPENSIVE ->
            ClientCalls.asyncUnaryCall(channel.newCall(WORK, options), call.request(), responses);
        case BLOCKING ->
            ClientCalls.asyncUnaryCall(channel.newCall(BLOCK, options), call.request(), responses);
        case STREAM ->
            ClientCalls.asyncServerStreamingCall(
                channel.newCall(WORK_STREAM, options), call.request(), responses);
      }
      return result;
    }

    private static void sendAll(StreamObserver<byte[]> requests, byte[] request) {
      for (int i = 0; i < CallKind.STREAM_MESSAGES; i++) {
        requests.onNext(request);
      }
      requests.onCompleted();
    }

    @Override
    public void shutdown(Duration timeout) throws InterruptedException {
      channel.shutdownNow();
      channel.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** Completes the call's future; for {@link CallKind#CANCEL}, cancels at the first response. */
  private static final class Responses implements ClientResponseObserver<byte[], byte[]> {
    private final CompletableFuture<CallEnd> result;
    private final boolean cancelAtFirst;
    private volatile ClientCallStreamObserver<byte[]> requests;

    Responses(CompletableFuture<CallEnd> result, boolean cancelAtFirst) {
      this.result = result;
      this.cancelAtFirst = cancelAtFirst;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<byte[]> requestStream) {
      this.requests = requestStream;
    }

    @Override
    public void onNext(byte[] value) {
      if (cancelAtFirst) {
        requests.cancel("the workload cancels after the first response", null);
      }
    }

    @Override
    public void onError(Throwable t) {
      Status status = Status.fromThrowable(t);
      result.complete(new CallEnd(status.getCode().name(), status.getDescription()));
    }

    @Override
    public void onCompleted() {
      result.complete(new CallEnd("OK", null));
    }
  }
}
