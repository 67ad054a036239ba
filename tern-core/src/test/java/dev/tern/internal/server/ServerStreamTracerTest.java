package dev.tern.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.Context;
import dev.tern.KnownLength;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerServiceDefinition;
import dev.tern.ServerStreamTracer;
import dev.tern.Status;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.internal.LogCapture;
import dev.tern.internal.TracerEvents;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Server stream tracers on a real server and channel (in-process): what a tracer sees of a
 * successful, a failing, a cancelled and an unknown-method call, and a throwing tracer that leaves
 * the call alone.
 */
class ServerStreamTracerTest {
  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new KnownLengthStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  private static final class KnownLengthStream extends ByteArrayInputStream implements KnownLength {
    KnownLengthStream(byte[] bytes) {
      super(bytes);
    }
  }

  private static final MethodDescriptor<byte[], byte[]> UNARY =
      MethodDescriptor.newBuilder(BYTES, BYTES)
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("test.Echo/Unary")
          .build();
  private static final MethodDescriptor<byte[], byte[]> MISSING =
      MethodDescriptor.newBuilder(BYTES, BYTES)
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("test.Echo/Missing")
          .build();

  private final String name = InProcessServerBuilder.generateName();
  private final List<Recording> tracers = new CopyOnWriteArrayList<>();
  private final ServerStreamTracer.Factory factory =
      new ServerStreamTracer.Factory() {
        @Override
        public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
          Recording tracer = new Recording(fullMethodName);
          tracers.add(tracer);
          return tracer;
        }
      };
  private final CompletableFuture<ServerCall<byte[], byte[]>> hanging = new CompletableFuture<>();
  private Server server;
  private ManagedChannel channel;

  /** Records the events of one stream. */
  private static final class Recording extends ServerStreamTracer {
    final String fullMethodName;
    final List<String> events = new CopyOnWriteArrayList<>();
    final AtomicReference<ServerCallInfo<?, ?>> callInfo = new AtomicReference<>();
    final CompletableFuture<Status> closed = new CompletableFuture<>();

    Recording(String fullMethodName) {
      this.fullMethodName = fullMethodName;
    }

    @Override
    public void serverCallStarted(ServerCallInfo<?, ?> info) {
      callInfo.set(info);
      events.add("started");
    }

    @Override
    public void outboundHeaders() {
      events.add("outboundHeaders");
    }

    @Override
    public void outboundMessage(int seqNo) {
      events.add("outboundMessage " + seqNo);
    }

    @Override
    public void inboundMessage(int seqNo) {
      events.add("inboundMessage " + seqNo);
    }

    @Override
    public void outboundUncompressedSize(long bytes) {
      events.add("outboundUncompressedSize " + bytes);
    }

    @Override
    public void inboundUncompressedSize(long bytes) {
      events.add("inboundUncompressedSize " + bytes);
    }

    @Override
    public void streamClosed(Status status) {
      events.add("closed " + status.getCode());
      closed.complete(status);
    }

    Status awaitClosed() throws Exception {
      return closed.get(5, TimeUnit.SECONDS);
    }
  }

  /** Replies "ok!" to "ok", fails "fail" with INVALID_ARGUMENT, never answers "hang". */
  private ServerServiceDefinition service() {
    return ServerServiceDefinition.builder("test.Echo")
        .addMethod(
            UNARY,
            (ServerCall<byte[], byte[]> call, Metadata headers) -> {
              call.request(1);
              return new ServerCall.Listener<byte[]>() {
                @Override
                public void onMessage(byte[] message) {
                  String text = new String(message, StandardCharsets.UTF_8);
                  if (text.equals("hang")) {
                    hanging.complete(call);
                  } else if (text.equals("fail")) {
                    call.close(Status.INVALID_ARGUMENT.withDescription("no"), new Metadata());
                  } else {
                    call.sendHeaders(new Metadata());
                    call.sendMessage((text + "!").getBytes(StandardCharsets.UTF_8));
                    call.close(Status.OK, new Metadata());
                  }
                }
              };
            })
        .build();
  }

  private void start(ServerStreamTracer.Factory... factories) throws IOException {
    InProcessServerBuilder builder =
        InProcessServerBuilder.forName(name).directExecutor().addService(service());
    for (ServerStreamTracer.Factory f : factories) {
      builder.addStreamTracerFactory(f);
    }
    server = builder.build().start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  private CompletableFuture<Status> unary(
      MethodDescriptor<byte[], byte[]> method,
      String request,
      AtomicReference<ClientCall<byte[], byte[]>> callOut) {
    CompletableFuture<Status> status = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call = channel.newCall(method, CallOptions.DEFAULT);
    if (callOut != null) {
      callOut.set(call);
    }
    call.start(
        new ClientCall.Listener<byte[]>() {
          @Override
          public void onClose(Status s, Metadata trailers) {
            status.complete(s);
          }
        },
        new Metadata());
    call.request(1);
    call.sendMessage(request.getBytes(StandardCharsets.UTF_8));
    call.halfClose();
    return status;
  }

  private Status unary(String request) throws Exception {
    return unary(UNARY, request, null).get(5, TimeUnit.SECONDS);
  }

  @Test
  void aCallsTracerSeesItsMethodMessagesAndStatus() throws Exception {
    start(factory);

    assertThat(unary("ok").isOk()).isTrue();

    assertThat(tracers).hasSize(1);
    Recording tracer = tracers.get(0);
    assertThat(tracer.awaitClosed().isOk()).isTrue();
    assertThat(tracer.fullMethodName).isEqualTo("test.Echo/Unary");
    assertThat(tracer.callInfo.get().getMethodDescriptor().getFullMethodName())
        .isEqualTo("test.Echo/Unary");
    assertThat(tracer.callInfo.get().getAttributes()).isNotNull();
    assertThat(tracer.events)
        .containsExactly(
            "started",
            "inboundMessage 0",
            "inboundUncompressedSize 2",
            "outboundHeaders",
            "outboundMessage 0",
            "outboundUncompressedSize 3",
            "closed OK");
  }

  @Test
  void theCallRunsInTheContextItsTracersFiltered() throws Exception {
    Context.Key<String> key = Context.key("tracer-value");
    ServerStreamTracer.Factory filtering =
        new ServerStreamTracer.Factory() {
          @Override
          public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
            return new ServerStreamTracer() {
              @Override
              public Context filterContext(Context context) {
                return context.withValue(key, "for " + fullMethodName);
              }
            };
          }
        };
    ServerStreamTracer.Factory returningNull =
        new ServerStreamTracer.Factory() {
          @Override
          public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
            return new ServerStreamTracer() {
              @Override
              public Context filterContext(Context context) {
                return null;
              }
            };
          }
        };
    List<String> seen = new CopyOnWriteArrayList<>();
    server =
        InProcessServerBuilder.forName(name)
            .directExecutor()
            .addService(service())
            .intercept(
                new ServerInterceptor() {
                  @Override
                  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
                      ServerCall<ReqT, RespT> call,
                      Metadata headers,
                      ServerCallHandler<ReqT, RespT> next) {
                    seen.add(key.get() + ", deadline " + (Context.current().getDeadline() != null));
                    return next.startCall(call, headers);
                  }
                })
            .addStreamTracerFactory(filtering)
            .addStreamTracerFactory(returningNull)
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    CompletableFuture<Status> status = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call =
        channel.newCall(UNARY, CallOptions.DEFAULT.withDeadlineAfter(1, TimeUnit.MINUTES));

    try (LogCapture logs = new LogCapture(TracerEvents.class)) {
      call.start(
          new ClientCall.Listener<byte[]>() {
            @Override
            public void onClose(Status s, Metadata trailers) {
              status.complete(s);
            }
          },
          new Metadata());
      call.request(1);
      call.sendMessage("ok".getBytes(StandardCharsets.UTF_8));
      call.halfClose();

      assertThat(status.get(5, TimeUnit.SECONDS).isOk()).isTrue();
      // the interceptor ran in the filtered context, which still carries the call's deadline; the
      // tracer returning null was skipped, with one WARNING
      assertThat(seen).containsExactly("for test.Echo/Unary, deadline true");
      assertThat(logs.records)
          .singleElement()
          .satisfies(r -> assertThat(r.getLevel()).isEqualTo(Level.WARNING));
    }
  }

  @Test
  void aFailedCallsTracerSeesTheStatusTheServerClosedWith() throws Exception {
    start(factory);

    assertThat(unary("fail").getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);

    Recording tracer = tracers.get(0);
    assertThat(tracer.awaitClosed().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(tracer.events).doesNotContain("outboundMessage 0");
  }

  @Test
  void aCancelledCallsTracerSeesCancelled() throws Exception {
    start(factory);
    AtomicReference<ClientCall<byte[], byte[]>> call = new AtomicReference<>();
    CompletableFuture<Status> status = unary(UNARY, "hang", call);
    hanging.get(5, TimeUnit.SECONDS);

    call.get().cancel("changed my mind", null);

    assertThat(status.get(5, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(tracers.get(0).awaitClosed().getCode()).isEqualTo(Status.Code.CANCELLED);
  }

  @Test
  void anUnknownMethodIsTracedWithoutACallStart() throws Exception {
    start(factory);

    assertThat(unary(MISSING, "ok", null).get(5, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.UNIMPLEMENTED);

    Recording tracer = tracers.get(0);
    assertThat(tracer.fullMethodName).isEqualTo("test.Echo/Missing");
    assertThat(tracer.awaitClosed().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(tracer.callInfo.get()).isNull();
  }

  @Test
  void aThrowingTracerLeavesTheCallAloneAndIsLoggedOnce() throws Exception {
    ServerStreamTracer.Factory throwing =
        new ServerStreamTracer.Factory() {
          @Override
          public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata h) {
            return new ServerStreamTracer() {
              @Override
              public void serverCallStarted(ServerCallInfo<?, ?> callInfo) {
                throw new IllegalStateException("tracer bug");
              }

              @Override
              public void outboundMessage(int seqNo) {
                throw new IllegalStateException("tracer bug");
              }
            };
          }
        };
    start(throwing, factory);

    try (LogCapture logs = new LogCapture(TracerEvents.class)) {
      assertThat(unary("ok").isOk()).isTrue();

      assertThat(logs.records).hasSize(1);
      assertThat(logs.records.get(0).getLevel()).isEqualTo(Level.WARNING);
      assertThat(logs.records.get(0).getThrown()).hasMessage("tracer bug");
    }
    assertThat(tracers.get(0).awaitClosed().isOk()).isTrue();
    assertThat(tracers.get(0).events).contains("started", "outboundMessage 0");
  }

  @Test
  void aServerWithoutFactoriesTracesNothing() throws Exception {
    start();

    assertThat(unary("ok").isOk()).isTrue();

    assertThat(tracers).isEmpty();
  }
}
