package dev.tern.internal.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.CallCredentials;
import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ClientStreamTracer;
import dev.tern.KnownLength;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.internal.LogCapture;
import dev.tern.internal.TracerEvents;
import dev.tern.internal.client.TracedClientStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Client stream tracers on a real channel and server (in-process): the events a tracer sees for
 * unary, streaming, failing and cancelled calls, one tracer per attempt under retry and hedging
 * policies, channel-wide factories, and a throwing tracer that leaves the call alone.
 */
class ClientStreamTracerTest {
  /** Byte arrays as messages that know their length, as protobuf's do. */
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
  private static final MethodDescriptor<byte[], byte[]> BIDI =
      MethodDescriptor.newBuilder(BYTES, BYTES)
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName("test.Echo/Bidi")
          .build();
  private static final Metadata.Key<String> PREVIOUS =
      Metadata.Key.of("grpc-previous-rpc-attempts", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> TAG =
      Metadata.Key.of("x-attempt-tag", Metadata.ASCII_STRING_MARSHALLER);

  /** The {@code x-attempt-tag} header of each unary call the server saw ("null" if none). */
  private final List<String> tagsSeen = new CopyOnWriteArrayList<>();

  private final String name = InProcessServerBuilder.generateName();
  private final List<Recording> tracers = new CopyOnWriteArrayList<>();
  private final ClientStreamTracer.Factory factory =
      new ClientStreamTracer.Factory() {
        @Override
        public ClientStreamTracer newClientStreamTracer(
            ClientStreamTracer.StreamInfo info, Metadata headers) {
          Recording tracer = new Recording(info);
          tracers.add(tracer);
          return tracer;
        }
      };
  private Server server;
  private ManagedChannel channel;

  /** Records the events of one stream. */
  private static final class Recording extends ClientStreamTracer {
    final ClientStreamTracer.StreamInfo info;
    final List<String> events = new CopyOnWriteArrayList<>();
    final CompletableFuture<Status> closed = new CompletableFuture<>();

    Recording(ClientStreamTracer.StreamInfo info) {
      this.info = info;
    }

    @Override
    public void streamCreated(Attributes transportAttrs, Metadata headers) {
      events.add("created");
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

  /**
   * Unary: replies "ok!" to "ok"; fails "fail" with INVALID_ARGUMENT; never answers "hang"; fails
   * the first attempt of "retry" with UNAVAILABLE; answers only the second attempt of "hedge".
   * Bidi: echoes each message, closes when the client half-closes.
   */
  private ServerServiceDefinition service() {
    return ServerServiceDefinition.builder("test.Echo")
        .addMethod(
            UNARY,
            (ServerCall<byte[], byte[]> call, Metadata headers) -> {
              call.request(1);
              tagsSeen.add(String.valueOf(headers.getAll(TAG)));
              String previous = headers.get(PREVIOUS);
              return new ServerCall.Listener<byte[]>() {
                @Override
                public void onMessage(byte[] message) {
                  String text = new String(message, StandardCharsets.UTF_8);
                  if (text.equals("hang") || (text.equals("hedge") && previous == null)) {
                    return;
                  }
                  if (text.equals("fail")) {
                    call.close(Status.INVALID_ARGUMENT.withDescription("no"), new Metadata());
                    return;
                  }
                  if (text.equals("retry") && previous == null) {
                    call.close(Status.UNAVAILABLE.withDescription("try again"), new Metadata());
                    return;
                  }
                  call.sendHeaders(new Metadata());
                  call.sendMessage((text + "!").getBytes(StandardCharsets.UTF_8));
                  call.close(Status.OK, new Metadata());
                }
              };
            })
        .addMethod(
            BIDI,
            (ServerCall<byte[], byte[]> call, Metadata headers) -> {
              call.request(Integer.MAX_VALUE);
              call.sendHeaders(new Metadata());
              return new ServerCall.Listener<byte[]>() {
                @Override
                public void onMessage(byte[] message) {
                  call.sendMessage(message);
                }

                @Override
                public void onHalfClose() {
                  call.close(Status.OK, new Metadata());
                }
              };
            })
        .build();
  }

  private void start(InProcessChannelBuilder builder) throws IOException {
    server =
        InProcessServerBuilder.forName(name).directExecutor().addService(service()).build().start();
    channel = builder.directExecutor().build();
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

  /** Starts a unary call; its future completes with its status. */
  private CompletableFuture<Status> unary(
      String request, CallOptions options, AtomicReference<ClientCall<byte[], byte[]>> callOut) {
    CompletableFuture<Status> status = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call = channel.newCall(UNARY, options);
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

  private Status unary(String request, CallOptions options) throws Exception {
    return unary(request, options, null).get(5, TimeUnit.SECONDS);
  }

  @Test
  void aUnaryCallIsTracedFromCreationToItsStatus() throws Exception {
    start(InProcessChannelBuilder.forName(name));

    assertThat(unary("ok", CallOptions.DEFAULT.withStreamTracerFactory(factory)).isOk()).isTrue();

    assertThat(tracers).hasSize(1);
    Recording tracer = tracers.get(0);
    assertThat(tracer.awaitClosed().isOk()).isTrue();
    assertThat(tracer.events)
        .containsExactly(
            "created",
            "outboundHeaders",
            "outboundMessage 0",
            "outboundUncompressedSize 2",
            "inboundHeaders",
            "inboundMessage 0",
            "inboundUncompressedSize 3",
            "inboundTrailers",
            "closed OK");
    assertThat(tracer.info.getPreviousAttempts()).isZero();
    assertThat(tracer.info.isTransparentRetry()).isFalse();
    assertThat(tracer.info.isHedging()).isFalse();
    assertThat(tracer.info.getCallOptions().getStreamTracerFactories()).containsExactly(factory);
  }

  @Test
  void callsWithoutAFactoryAreNotTraced() throws Exception {
    start(InProcessChannelBuilder.forName(name));

    assertThat(unary("ok", CallOptions.DEFAULT).isOk()).isTrue();

    assertThat(tracers).isEmpty();
  }

  @Test
  void aStreamingCallNumbersItsMessagesEachWay() throws Exception {
    start(InProcessChannelBuilder.forName(name));
    CompletableFuture<Status> status = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call =
        channel.newCall(BIDI, CallOptions.DEFAULT.withStreamTracerFactory(factory));
    call.start(
        new ClientCall.Listener<byte[]>() {
          @Override
          public void onClose(Status s, Metadata trailers) {
            status.complete(s);
          }
        },
        new Metadata());
    call.request(Integer.MAX_VALUE);
    for (String message : List.of("a", "bb", "ccc")) {
      call.sendMessage(message.getBytes(StandardCharsets.UTF_8));
    }
    call.halfClose();

    assertThat(status.get(5, TimeUnit.SECONDS).isOk()).isTrue();
    Recording tracer = tracers.get(0);
    tracer.awaitClosed();
    List<String> outbound = new ArrayList<>();
    List<String> inbound = new ArrayList<>();
    for (String event : tracer.events) {
      if (event.startsWith("outboundMessage") || event.startsWith("outboundUncompressed")) {
        outbound.add(event);
      } else if (event.startsWith("inboundMessage") || event.startsWith("inboundUncompressed")) {
        inbound.add(event);
      }
    }
    List<String> expected =
        List.of(
            "Message 0",
            "UncompressedSize 1",
            "Message 1",
            "UncompressedSize 2",
            "Message 2",
            "UncompressedSize 3");
    assertThat(outbound)
        .containsExactlyElementsOf(expected.stream().map(e -> "outbound" + e).toList());
    assertThat(inbound)
        .containsExactlyElementsOf(expected.stream().map(e -> "inbound" + e).toList());
    assertThat(tracer.events.get(tracer.events.size() - 1)).isEqualTo("closed OK");
  }

  @Test
  void aFailingCallsTracerSeesItsStatus() throws Exception {
    start(InProcessChannelBuilder.forName(name));

    Status status = unary("fail", CallOptions.DEFAULT.withStreamTracerFactory(factory));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    Recording tracer = tracers.get(0);
    assertThat(tracer.awaitClosed().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(tracer.events).doesNotContain("inboundMessage 0", "inboundHeaders");
    assertThat(tracer.events).endsWith("inboundTrailers", "closed INVALID_ARGUMENT");
  }

  @Test
  void aCancelledCallsTracerSeesCancelled() throws Exception {
    start(InProcessChannelBuilder.forName(name));
    AtomicReference<ClientCall<byte[], byte[]>> call = new AtomicReference<>();
    CompletableFuture<Status> status =
        unary("hang", CallOptions.DEFAULT.withStreamTracerFactory(factory), call);

    call.get().cancel("changed my mind", null);

    assertThat(status.get(5, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(tracers.get(0).awaitClosed().getCode()).isEqualTo(Status.Code.CANCELLED);
  }

  @Test
  void eachRetryAttemptGetsItsOwnTracer() throws Exception {
    start(
        InProcessChannelBuilder.forName(name)
            .enableRetry()
            .defaultServiceConfigJson(
                "{\"methodConfig\": [{\"name\": [{\"service\": \"test.Echo\"}],"
                    + " \"retryPolicy\": {\"maxAttempts\": 3, \"initialBackoff\": \"0.001s\","
                    + " \"maxBackoff\": \"0.001s\", \"backoffMultiplier\": 1,"
                    + " \"retryableStatusCodes\": [\"UNAVAILABLE\"]}}]}"));

    assertThat(unary("retry", CallOptions.DEFAULT.withStreamTracerFactory(factory)).isOk())
        .isTrue();

    assertThat(tracers).hasSize(2);
    assertThat(tracers.get(0).info.getPreviousAttempts()).isZero();
    assertThat(tracers.get(0).awaitClosed().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(tracers.get(1).info.getPreviousAttempts()).isEqualTo(1);
    assertThat(tracers.get(1).awaitClosed().isOk()).isTrue();
    assertThat(tracers.get(1).events).contains("inboundMessage 0");
    for (Recording tracer : tracers) {
      assertThat(tracer.info.isHedging()).isFalse();
      assertThat(tracer.info.isTransparentRetry()).isFalse();
    }
  }

  @Test
  void aFactoryMayAddAHeaderToEachAttempt() throws Exception {
    start(
        InProcessChannelBuilder.forName(name)
            .enableRetry()
            .defaultServiceConfigJson(
                "{\"methodConfig\": [{\"name\": [{\"service\": \"test.Echo\"}],"
                    + " \"retryPolicy\": {\"maxAttempts\": 3, \"initialBackoff\": \"0.001s\","
                    + " \"maxBackoff\": \"0.001s\", \"backoffMultiplier\": 1,"
                    + " \"retryableStatusCodes\": [\"UNAVAILABLE\"]}}]}"));
    ClientStreamTracer.Factory tagging =
        new ClientStreamTracer.Factory() {
          @Override
          public ClientStreamTracer newClientStreamTracer(
              ClientStreamTracer.StreamInfo info, Metadata headers) {
            headers.discardAll(TAG);
            headers.put(TAG, "attempt-" + info.getPreviousAttempts());
            return null;
          }
        };

    // Call credentials make the stream from a merged copy of the headers: the tag must be in
    // the headers before that copy is made.
    CallCredentials credentials =
        new CallCredentials() {
          @Override
          public void applyRequestMetadata(
              RequestInfo info, Executor appExecutor, MetadataApplier applier) {
            applier.apply(new Metadata());
          }
        };
    CallOptions options =
        CallOptions.DEFAULT.withStreamTracerFactory(tagging).withCallCredentials(credentials);

    assertThat(unary("retry", options).isOk()).isTrue();
    assertThat(unary("ok", CallOptions.DEFAULT).isOk()).isTrue();

    // each attempt sent its own tag, once; a call without the factory sent none
    assertThat(tagsSeen).containsExactly("[attempt-0]", "[attempt-1]", "null");
  }

  @Test
  void hedgedAttemptsAreTracedAsHedges() throws Exception {
    start(
        InProcessChannelBuilder.forName(name)
            .enableRetry()
            .defaultServiceConfigJson(
                "{\"methodConfig\": [{\"name\": [{\"service\": \"test.Echo\"}],"
                    + " \"hedgingPolicy\": {\"maxAttempts\": 2, \"hedgingDelay\": \"0s\"}}]}"));

    assertThat(unary("hedge", CallOptions.DEFAULT.withStreamTracerFactory(factory)).isOk())
        .isTrue();

    assertThat(tracers).hasSize(2);
    assertThat(tracers).allSatisfy(t -> assertThat(t.info.isHedging()).isTrue());
    assertThat(tracers.get(0).info.getPreviousAttempts()).isZero();
    assertThat(tracers.get(1).info.getPreviousAttempts()).isEqualTo(1);
    // the first copy never gets an answer: it loses to the second, which the call commits to
    assertThat(tracers.get(0).awaitClosed().getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(tracers.get(1).awaitClosed().isOk()).isTrue();
  }

  @Test
  void aChannelWideFactoryTracesEveryCall() throws Exception {
    start(InProcessChannelBuilder.forName(name).addStreamTracerFactory(factory));

    assertThat(unary("ok", CallOptions.DEFAULT).isOk()).isTrue();
    assertThat(unary("fail", CallOptions.DEFAULT).getCode())
        .isEqualTo(Status.Code.INVALID_ARGUMENT);

    assertThat(tracers).hasSize(2);
    assertThat(tracers.get(0).awaitClosed().isOk()).isTrue();
    assertThat(tracers.get(1).awaitClosed().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void aThrowingTracerLeavesTheCallAloneAndIsLoggedOnce() throws Exception {
    start(InProcessChannelBuilder.forName(name));
    ClientStreamTracer.Factory throwing =
        new ClientStreamTracer.Factory() {
          @Override
          public ClientStreamTracer newClientStreamTracer(
              ClientStreamTracer.StreamInfo info, Metadata headers) {
            return new ClientStreamTracer() {
              @Override
              public void outboundHeaders() {
                throw new IllegalStateException("tracer bug");
              }

              @Override
              public void inboundMessage(int seqNo) {
                throw new IllegalStateException("tracer bug");
              }

              @Override
              public void streamClosed(Status status) {
                throw new IllegalStateException("tracer bug");
              }
            };
          }
        };

    try (LogCapture logs = new LogCapture(TracerEvents.class)) {
      Status status =
          unary(
              "ok",
              CallOptions.DEFAULT
                  .withStreamTracerFactory(throwing)
                  .withStreamTracerFactory(factory));

      assertThat(status.isOk()).isTrue();
      assertThat(logs.records).hasSize(1);
      assertThat(logs.records.get(0).getLevel()).isEqualTo(Level.WARNING);
      assertThat(logs.records.get(0).getThrown()).hasMessage("tracer bug");
    }
    // the well-behaved tracer after the throwing one still saw everything
    assertThat(tracers.get(0).awaitClosed().isOk()).isTrue();
    assertThat(tracers.get(0).events).contains("outboundHeaders", "inboundMessage 0");
  }

  @Test
  void aThrowingFactoryLeavesTheCallUntraced() throws Exception {
    start(InProcessChannelBuilder.forName(name));
    ClientStreamTracer.Factory throwing =
        new ClientStreamTracer.Factory() {
          @Override
          public ClientStreamTracer newClientStreamTracer(
              ClientStreamTracer.StreamInfo info, Metadata headers) {
            throw new IllegalStateException("factory bug");
          }
        };

    try (LogCapture logs = new LogCapture(TracedClientStream.class)) {
      assertThat(unary("ok", CallOptions.DEFAULT.withStreamTracerFactory(throwing)).isOk())
          .isTrue();

      assertThat(logs.records).hasSize(1);
      assertThat(logs.records.get(0).getThrown()).hasMessage("factory bug");
    }
  }
}
