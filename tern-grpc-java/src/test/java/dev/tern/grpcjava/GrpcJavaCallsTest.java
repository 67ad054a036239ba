package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.ManagedChannelProvider;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerProvider;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.Messages.BoolValue;
import io.grpc.testing.integration.Messages.EchoStatus;
import io.grpc.testing.integration.Messages.Payload;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.Messages.StreamingInputCallRequest;
import io.grpc.testing.integration.Messages.StreamingInputCallResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.grpc.testing.integration.TestServiceGrpc;
import io.grpc.testing.integration.TestServiceImpl;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * grpc-java code, unchanged, on Tern: grpc-java's generated interop stubs and its own interop
 * service, with only {@code io.grpc} calls here, over a real server on a free port.
 * grpc-netty-shaded is on the test class path too, so the providers' priority is what picks Tern.
 */
class GrpcJavaCallsTest {
  private static final Metadata.Key<String> ECHO_INITIAL =
      Metadata.Key.of("x-grpc-test-echo-initial", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> ECHO_TRAILING =
      Metadata.Key.of("x-grpc-test-echo-trailing-bin", Metadata.BINARY_BYTE_MARSHALLER);
  private static final Metadata.Key<String> USER_AGENT =
      Metadata.Key.of("user-agent", Metadata.ASCII_STRING_MARSHALLER);

  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

  /** The request headers of every call the server received, captured by a server interceptor. */
  private final BlockingQueue<Metadata> received = new LinkedBlockingQueue<>();

  private Server server;
  private ManagedChannel channel;
  private TestServiceGrpc.TestServiceBlockingStub blocking;
  private TestServiceGrpc.TestServiceStub async;

  @BeforeEach
  void start() throws Exception {
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(
                ServerInterceptors.intercept(
                    new TestServiceImpl(scheduler), TestServiceImpl.interceptors()))
            .intercept(captureHeaders())
            .build()
            .start();
    channel = Peers.channelTo(server);
    blocking = TestServiceGrpc.newBlockingStub(channel);
    async = TestServiceGrpc.newStub(channel);
  }

  @AfterEach
  void stop() throws Exception {
    Peers.close(channel, server, scheduler);
  }

  private ServerInterceptor captureHeaders() {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        received.add(headers);
        return next.startCall(call, headers);
      }
    };
  }

  private static Payload payload(int size) {
    return Payload.newBuilder().setBody(ByteString.copyFrom(new byte[size])).build();
  }

  @Test
  void providersAndBuildersAreTerns() throws Exception {
    assertThat(ManagedChannelProvider.provider().getClass().getName())
        .startsWith("dev.tern.grpcjava.");
    assertThat(ServerProvider.provider().getClass().getName()).startsWith("dev.tern.grpcjava.");
    ManagedChannelBuilder<?> builder = ManagedChannelBuilder.forTarget("127.0.0.1:1");
    assertThat(builder.getClass().getName()).startsWith("dev.tern.grpcjava.");
    assertThat(channel.getClass().getName()).startsWith("dev.tern.grpcjava.");
    assertThat(server.getClass().getName()).startsWith("dev.tern.grpcjava.");

    blocking.emptyCall(io.grpc.testing.integration.EmptyProtos.Empty.getDefaultInstance());
    // Tern's HTTP/2 client announces itself; grpc-java's would say grpc-java-netty.
    assertThat(received.poll(5, TimeUnit.SECONDS).get(USER_AGENT)).contains("tern-java/");
  }

  @Test
  void unary() {
    SimpleResponse response =
        blocking.unaryCall(
            SimpleRequest.newBuilder().setResponseSize(314).setPayload(payload(271)).build());
    assertThat(response.getPayload().getBody().size()).isEqualTo(314);
  }

  @Test
  void serverStreaming() {
    StreamingOutputCallRequest.Builder request = StreamingOutputCallRequest.newBuilder();
    for (int size : new int[] {31415, 9, 2653, 58979}) {
      request.addResponseParameters(ResponseParameters.newBuilder().setSize(size));
    }
    List<Integer> sizes = new ArrayList<>();
    Iterator<StreamingOutputCallResponse> responses = blocking.streamingOutputCall(request.build());
    responses.forEachRemaining(r -> sizes.add(r.getPayload().getBody().size()));
    assertThat(sizes).containsExactly(31415, 9, 2653, 58979);
  }

  @Test
  void clientStreaming() throws Exception {
    CompletableFuture<StreamingInputCallResponse> done = new CompletableFuture<>();
    StreamObserver<StreamingInputCallRequest> requests =
        async.streamingInputCall(new FutureObserver<>(done));
    for (int size : new int[] {27182, 8, 1828, 45904}) {
      requests.onNext(StreamingInputCallRequest.newBuilder().setPayload(payload(size)).build());
    }
    requests.onCompleted();
    assertThat(done.get(5, TimeUnit.SECONDS).getAggregatedPayloadSize()).isEqualTo(74922);
  }

  @Test
  void bidiStreaming() throws Exception {
    BlockingQueue<Object> responses = new LinkedBlockingQueue<>();
    StreamObserver<StreamingOutputCallRequest> requests =
        async.fullDuplexCall(
            new StreamObserver<>() {
              @Override
              public void onNext(StreamingOutputCallResponse value) {
                responses.add(value.getPayload().getBody().size());
              }

              @Override
              public void onError(Throwable t) {
                responses.add(t);
              }

              @Override
              public void onCompleted() {
                responses.add("completed");
              }
            });
    // Ping-pong: each response arrives before the next request is sent.
    for (int size : new int[] {31415, 9, 2653}) {
      requests.onNext(
          StreamingOutputCallRequest.newBuilder()
              .addResponseParameters(ResponseParameters.newBuilder().setSize(size))
              .build());
      assertThat(responses.poll(5, TimeUnit.SECONDS)).isEqualTo(size);
    }
    requests.onCompleted();
    assertThat(responses.poll(5, TimeUnit.SECONDS)).isEqualTo("completed");
  }

  @Test
  void metadataAndTrailersBothWays() {
    Metadata extra = new Metadata();
    extra.put(ECHO_INITIAL, "test_initial_metadata_value");
    extra.put(ECHO_TRAILING, new byte[] {(byte) 0xab, (byte) 0xab, (byte) 0xab, 0, (byte) 0xff});
    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    blocking
        .withInterceptors(
            MetadataUtils.newAttachHeadersInterceptor(extra),
            MetadataUtils.newCaptureMetadataInterceptor(headers, trailers))
        .unaryCall(SimpleRequest.newBuilder().setResponseSize(1).build());

    assertThat(headers.get().get(ECHO_INITIAL)).isEqualTo("test_initial_metadata_value");
    assertThat(trailers.get().get(ECHO_TRAILING))
        .containsExactly((byte) 0xab, (byte) 0xab, (byte) 0xab, 0, (byte) 0xff);
  }

  @Test
  void statusWithDescription() {
    SimpleRequest request =
        SimpleRequest.newBuilder()
            .setResponseStatus(EchoStatus.newBuilder().setCode(2).setMessage("test status message"))
            .build();
    assertThatThrownBy(() -> blocking.unaryCall(request))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
              assertThat(e.getStatus().getDescription()).isEqualTo("test status message");
            });
  }

  @Test
  void deadlineExceeded() {
    StreamingOutputCallRequest slow =
        StreamingOutputCallRequest.newBuilder()
            .addResponseParameters(
                ResponseParameters.newBuilder().setSize(1).setIntervalUs(30_000_000))
            .build();
    Iterator<StreamingOutputCallResponse> responses =
        blocking.withDeadlineAfter(200, TimeUnit.MILLISECONDS).streamingOutputCall(slow);
    assertThatThrownBy(responses::hasNext)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
  }

  @Test
  void compressedRequestsAndResponses() {
    // Tern takes grpc-encoding out of the headers the application sees (so does grpc-java), so
    // the wire encoding itself is not observable through io.grpc; what is: gzip, and zstd
    // (tern-zstd
    // is on the test class path, as an application adds it), named by the client's call options,
    // and the service's compressed response (ResponseCompressed: setCompression on its call),
    // round-trip, and a compressor Tern does not have fails the call saying so.
    SimpleRequest compressible =
        SimpleRequest.newBuilder()
            .setResponseSize(100_000)
            .setPayload(payload(100_000))
            .setResponseCompressed(BoolValue.newBuilder().setValue(true))
            .build();
    for (String encoding : new String[] {"gzip", "zstd"}) {
      SimpleResponse response = blocking.withCompression(encoding).unaryCall(compressible);
      assertThat(response.getPayload().getBody().size()).as(encoding).isEqualTo(100_000);
    }

    assertThatThrownBy(() -> blocking.withCompression("no-such-codec").unaryCall(compressible))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getDescription()).contains("no-such-codec"));
  }

  @Test
  void largeMessages() {
    int size = 3 * 1024 * 1024;
    SimpleResponse response =
        blocking.unaryCall(
            SimpleRequest.newBuilder().setResponseSize(size).setPayload(payload(size)).build());
    assertThat(response.getPayload().getBody().size()).isEqualTo(size);
  }

  @Test
  void responseOverTheChannelsLimitFailsResourceExhausted() throws Exception {
    ManagedChannel limited =
        Grpc.newChannelBuilder("127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create())
            .maxInboundMessageSize(1000)
            .build();
    try {
      SimpleRequest request = SimpleRequest.newBuilder().setResponseSize(5000).build();
      assertThatThrownBy(() -> TestServiceGrpc.newBlockingStub(limited).unaryCall(request))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
    } finally {
      Peers.close(limited);
    }
  }

  @Test
  void channelInterceptorsRunAsGrpcJavaInterceptors() throws Exception {
    List<String> seen = new ArrayList<>();
    ClientInterceptor naming =
        new ClientInterceptor() {
          @Override
          public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
              MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next) {
            seen.add(method.getFullMethodName());
            return new ForwardingClientCall.SimpleForwardingClientCall<>(
                next.newCall(method, options)) {};
          }
        };
    ManagedChannel intercepted =
        Grpc.newChannelBuilder("127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create())
            .intercept(naming)
            .build();
    try {
      TestServiceGrpc.newBlockingStub(intercepted)
          .unaryCall(SimpleRequest.newBuilder().setResponseSize(1).build());
      assertThat(seen).containsExactly("grpc.testing.TestService/UnaryCall");
    } finally {
      Peers.close(intercepted);
    }
  }

  /** Completes a future with a unary response (or its error). */
  private static final class FutureObserver<T> implements StreamObserver<T> {
    private final CompletableFuture<T> future;
    private T value;

    FutureObserver(CompletableFuture<T> future) {
      this.future = future;
    }

    @Override
    public void onNext(T value) {
      this.value = value;
    }

    @Override
    public void onError(Throwable t) {
      future.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
      future.complete(value);
    }
  }
}
