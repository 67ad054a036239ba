package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientStreamTracer;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.testing.integration.EmptyProtos.Empty;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.grpc.testing.integration.TestServiceGrpc;
import io.grpc.testing.integration.TestServiceImpl;
import io.grpc.testing.integration.UnimplementedServiceGrpc;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * grpc-java's stream tracers ({@code CallOptions.withStreamTracerFactory}, what grpc-java's
 * OpenTelemetry and census modules install from an interceptor) on the bridge: the tracer hears the
 * stream's events in grpc-java's order, the headers its factory adds are sent, and the factory sees
 * the call's own options.
 */
class GrpcJavaStreamTracerTest {
  private static final Metadata.Key<String> TRACE =
      Metadata.Key.of("x-trace-context", Metadata.ASCII_STRING_MARSHALLER);
  private static final CallOptions.Key<String> TAG = CallOptions.Key.create("tag");

  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private static final io.grpc.Context.Key<String> SPAN = io.grpc.Context.key("span");

  private final BlockingQueue<String> headersAtServer = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> spansInHandler = new LinkedBlockingQueue<>();
  private final RecordingServerFactory serverTracers = new RecordingServerFactory();
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    ServerInterceptor recordTrace =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            String trace = headers.get(TRACE);
            headersAtServer.add(trace == null ? "none" : trace);
            String span = SPAN.get();
            spansInHandler.add(span == null ? "none" : span);
            return next.startCall(call, headers);
          }
        };
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addStreamTracerFactory(serverTracers)
            .addService(ServerInterceptors.intercept(new TestServiceImpl(scheduler), recordTrace))
            .build()
            .start();
    channel = Peers.channelTo(server);
  }

  @AfterEach
  void stop() throws Exception {
    Peers.close(channel, server, scheduler);
  }

  @Test
  void theTracerHearsTheStreamInGrpcJavasOrder() {
    RecordingFactory factory = new RecordingFactory();
    StreamingOutputCallRequest.Builder request = StreamingOutputCallRequest.newBuilder();
    for (int size : new int[] {10, 20, 30}) {
      request.addResponseParameters(ResponseParameters.newBuilder().setSize(size));
    }

    Iterator<StreamingOutputCallResponse> responses =
        traced(factory).withOption(TAG, "mine").streamingOutputCall(request.build());
    List<Integer> sizes = new ArrayList<>();
    responses.forEachRemaining(r -> sizes.add(r.getPayload().getBody().size()));

    assertThat(sizes).containsExactly(10, 20, 30);
    assertThat(factory.events)
        .containsExactly(
            "newClientStreamTracer attempt 0 tag mine",
            "streamCreated",
            "outboundHeaders",
            "outboundMessage 0",
            "outboundMessageSent 0",
            "inboundHeaders",
            "inboundMessage 0",
            "inboundMessageRead 0",
            "inboundMessage 1",
            "inboundMessageRead 1",
            "inboundMessage 2",
            "inboundMessageRead 2",
            "inboundTrailers",
            "streamClosed OK");
    // The sizes come through the size events: the request's and the three responses' bodies.
    assertThat(factory.outboundUncompressed.get()).isEqualTo(request.build().getSerializedSize());
    assertThat(factory.outboundWire.get()).isEqualTo(request.build().getSerializedSize());
    assertThat(factory.inboundUncompressed.get()).isGreaterThanOrEqualTo(60);
  }

  @Test
  void aHeaderTheFactoryAddsIsSent() throws Exception {
    RecordingFactory factory = new RecordingFactory();

    traced(factory).emptyCall(Empty.getDefaultInstance());

    assertThat(headersAtServer.poll(5, TimeUnit.SECONDS)).isEqualTo("trace-1");
  }

  @Test
  void aFailedCallClosesTheTracerWithItsStatus() {
    RecordingFactory factory = new RecordingFactory();

    assertThatThrownBy(() -> traced(factory).unimplementedCall(Empty.getDefaultInstance()))
        .isInstanceOf(StatusRuntimeException.class);

    assertThat(factory.events).contains("streamClosed UNIMPLEMENTED");
    assertThat(factory.events).doesNotContain("inboundMessage 0");
  }

  @Test
  void aServerTracerHearsTheCallAndItsContextReachesTheHandler() throws Exception {
    TestServiceGrpc.newBlockingStub(channel).emptyCall(Empty.getDefaultInstance());

    assertThat(spansInHandler.poll(5, TimeUnit.SECONDS))
        .isEqualTo("span of grpc.testing.TestService/EmptyCall");
    assertThat(serverTracers.closed.poll(5, TimeUnit.SECONDS)).isEqualTo("OK");
    assertThat(serverTracers.events)
        .containsExactly(
            "newServerStreamTracer grpc.testing.TestService/EmptyCall",
            "filterContext",
            "serverCallStarted grpc.testing.TestService/EmptyCall UNARY",
            "inboundMessage 0",
            "inboundMessageRead 0",
            "outboundMessage 0",
            "outboundMessageSent 0",
            "streamClosed OK");
  }

  @Test
  void aServerTracerHearsAStreamRejectedForAnUnknownMethod() throws Exception {
    assertThatThrownBy(
            () ->
                UnimplementedServiceGrpc.newBlockingStub(channel)
                    .unimplementedCall(Empty.getDefaultInstance()))
        .isInstanceOf(StatusRuntimeException.class);

    assertThat(serverTracers.closed.poll(5, TimeUnit.SECONDS)).isEqualTo("UNIMPLEMENTED");
    assertThat(serverTracers.events).doesNotContain("filterContext");
  }

  /** A stub whose calls carry {@code factory}, added by an interceptor as instrumentation does. */
  private TestServiceGrpc.TestServiceBlockingStub traced(ClientStreamTracer.Factory factory) {
    ClientInterceptor addTracer =
        new ClientInterceptor() {
          @Override
          public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
              MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next) {
            return next.newCall(method, options.withStreamTracerFactory(factory));
          }
        };
    return TestServiceGrpc.newBlockingStub(channel).withInterceptors(addTracer);
  }

  /** A grpc-java server factory whose tracers record their events and put a span in the context. */
  private static final class RecordingServerFactory extends io.grpc.ServerStreamTracer.Factory {
    final ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
    final BlockingQueue<String> closed = new LinkedBlockingQueue<>();

    @Override
    public io.grpc.ServerStreamTracer newServerStreamTracer(String method, Metadata headers) {
      events.add("newServerStreamTracer " + method);
      return new io.grpc.ServerStreamTracer() {
        @Override
        public io.grpc.Context filterContext(io.grpc.Context context) {
          events.add("filterContext");
          return context.withValue(SPAN, "span of " + method);
        }

        @Override
        public void serverCallStarted(ServerCallInfo<?, ?> info) {
          events.add(
              "serverCallStarted "
                  + info.getMethodDescriptor().getFullMethodName()
                  + " "
                  + info.getMethodDescriptor().getType());
        }

        @Override
        public void outboundMessage(int seqNo) {
          events.add("outboundMessage " + seqNo);
        }

        @Override
        public void outboundMessageSent(int seqNo, long wireSize, long uncompressedSize) {
          events.add("outboundMessageSent " + seqNo);
        }

        @Override
        public void inboundMessage(int seqNo) {
          events.add("inboundMessage " + seqNo);
        }

        @Override
        public void inboundMessageRead(int seqNo, long wireSize, long uncompressedSize) {
          events.add("inboundMessageRead " + seqNo);
        }

        @Override
        public void streamClosed(Status status) {
          events.add("streamClosed " + status.getCode());
          closed.add(status.getCode().toString());
        }
      };
    }
  }

  /** A grpc-java factory that records every event of its tracers and adds a trace header. */
  private static final class RecordingFactory extends ClientStreamTracer.Factory {
    final ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
    final AtomicLong outboundWire = new AtomicLong();
    final AtomicLong outboundUncompressed = new AtomicLong();
    final AtomicLong inboundUncompressed = new AtomicLong();

    @Override
    public ClientStreamTracer newClientStreamTracer(
        ClientStreamTracer.StreamInfo info, Metadata headers) {
      events.add(
          "newClientStreamTracer attempt "
              + info.getPreviousAttempts()
              + " tag "
              + info.getCallOptions().getOption(TAG));
      headers.discardAll(TRACE);
      headers.put(TRACE, "trace-1");
      return new ClientStreamTracer() {
        @Override
        public void streamCreated(io.grpc.Attributes transportAttrs, Metadata headers) {
          events.add("streamCreated");
        }

        @Override
        public void outboundHeaders() {
          events.add("outboundHeaders");
        }

        @Override
        public void inboundHeaders(Metadata headers) {
          events.add("inboundHeaders");
        }

        @Override
        public void inboundTrailers(Metadata trailers) {
          events.add("inboundTrailers");
        }

        @Override
        public void outboundMessage(int seqNo) {
          events.add("outboundMessage " + seqNo);
        }

        @Override
        public void outboundMessageSent(int seqNo, long wireSize, long uncompressedSize) {
          events.add("outboundMessageSent " + seqNo);
        }

        @Override
        public void inboundMessage(int seqNo) {
          events.add("inboundMessage " + seqNo);
        }

        @Override
        public void inboundMessageRead(int seqNo, long wireSize, long uncompressedSize) {
          events.add("inboundMessageRead " + seqNo);
        }

        @Override
        public void outboundWireSize(long bytes) {
          outboundWire.addAndGet(bytes);
        }

        @Override
        public void outboundUncompressedSize(long bytes) {
          outboundUncompressed.addAndGet(bytes);
        }

        @Override
        public void inboundUncompressedSize(long bytes) {
          inboundUncompressed.addAndGet(bytes);
        }

        @Override
        public void streamClosed(Status status) {
          events.add("streamClosed " + status.getCode());
        }
      };
    }
  }
}
