package dev.tern.reliability;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerInterceptors;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.stub.BlockingServerCalls;
import dev.tern.stub.ClientCallStreamObserver;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ClientResponseObserver;
import dev.tern.stub.ServerCallStreamObserver;
import dev.tern.stub.ServerCalls;
import dev.tern.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Tern's servers and client for the harness. grpc-java's ({@link GrpcJavaPeer}) mirror this class
 * line by line on grpc-java's API (same names in other packages), so the two run the same calls.
 *
 * <p>Servers are started and stopped by one thread; the client is thread-safe.
 */
public final class TernPeer implements Peer {
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
  private final int maxConcurrentCalls;
  private final boolean adaptiveConcurrencyLimit;

  /** Servers with Tern's defaults. */
  public TernPeer() {
    this(Integer.MAX_VALUE);
  }

  /**
   * Servers that keep at most {@code maxConcurrentCalls} calls in progress, as {@link
   * #TernPeer(int)}, with the adaptive concurrency limit on (the default) or off ({@link
   * dev.tern.ServerBuilder#adaptiveConcurrencyLimit}).
   */
  public TernPeer(int maxConcurrentCalls, boolean adaptiveConcurrencyLimit) {
    if (maxConcurrentCalls <= 0) {
      throw new IllegalArgumentException(
          "maxConcurrentCalls must be > 0, was " + maxConcurrentCalls);
    }
    this.maxConcurrentCalls = maxConcurrentCalls;
    this.adaptiveConcurrencyLimit = adaptiveConcurrencyLimit;
  }

  /**
   * Servers that keep at most {@code maxConcurrentCalls} calls in progress ({@link
   * dev.tern.ServerBuilder#maxConcurrentCalls}); {@link Integer#MAX_VALUE} keeps the default (no
   * fixed bound, the adaptive limit only).
   */
  public TernPeer(int maxConcurrentCalls) {
    this(maxConcurrentCalls, true);
  }

  @Override
  public String name() {
    return "Tern"
        + (maxConcurrentCalls == Integer.MAX_VALUE
            ? ""
            : ", maxConcurrentCalls=" + maxConcurrentCalls)
        + (adaptiveConcurrencyLimit ? "" : ", adaptiveConcurrencyLimit=false");
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
  private Server startServer(InetSocketAddress address, ServerInterceptor... interceptors)
      throws IOException {
    HealthStatusManager health = new HealthStatusManager();
    health.setStatus(ChaosService.SERVICE, ServingStatus.SERVING);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(address)
            .addService(ServerInterceptors.intercept(service(), interceptors))
            .addService(health.getHealthService())
            .permitKeepAliveTime(ChaosService.KEEPALIVE_TIME_SECONDS, TimeUnit.SECONDS)
            .maxInboundMessageSize(2 * CallKind.LARGE);
    if (maxConcurrentCalls != Integer.MAX_VALUE) {
      builder.maxConcurrentCalls(maxConcurrentCalls);
    }
    if (!adaptiveConcurrencyLimit) {
      builder.adaptiveConcurrencyLimit(false);
    }
    return builder.build().start();
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
  public Client newClient(List<InetSocketAddress> servers) {
    String target =
        "ipv4:"
            + servers.stream()
                .map(a -> a.getAddress().getHostAddress() + ":" + a.getPort())
                .collect(Collectors.joining(","));
    ManagedChannel channel =
        NettyChannelBuilder.forTarget(target)
            .usePlaintext()
            .defaultServiceConfigJson(ChaosService.SERVICE_CONFIG)
            .keepAliveTime(ChaosService.KEEPALIVE_TIME_SECONDS, TimeUnit.SECONDS)
            .keepAliveTimeout(ChaosService.KEEPALIVE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .maxInboundMessageSize(2 * CallKind.LARGE)
            .build();
    return new TernClient(channel);
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
        // Blocking code on the default blocking executor, as docs/blocking.md tells a user:
        // a virtual thread per call on JDK 21 and later, a bounded pool before.
        .addMethod(BLOCK, BlockingServerCalls.unaryCall(ChaosService::block))
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

  /** The client: each call completes its future with its status code's name. */
  private static final class TernClient implements Client {
    private final ManagedChannel channel;

    TernClient(ManagedChannel channel) {
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
