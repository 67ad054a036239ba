package dev.tern.netty.interop;

import static dev.tern.netty.interop.InteropContract.DEFAULT_MAX_MESSAGE;
import static dev.tern.netty.interop.InteropContract.TRICKY_DESCRIPTION;
import static dev.tern.netty.interop.InteropContract.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CompressorRegistry;
import dev.tern.DecompressorRegistry;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.testing.Await;
import dev.tern.testing.TernCleanupExtension;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Codec;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A grpc-java 1.79 client calling a Tern server ({@link TernEchoService}) over plaintext HTTP/2 on
 * loopback: every call shape, metadata, errors, deadlines, cancellation, compression and message
 * size limits must come out as the gRPC protocol says. The mirror of {@link
 * TernClientToGrpcJavaServerTest}.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class GrpcJavaClientToTernServerTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  /** Generous for any sane flow-control window plus socket buffers. */
  private static final int MAX_AHEAD_BYTES = 32 * 1024 * 1024;

  private final TernEchoService service = new TernEchoService();
  private final TernEchoService.CountingGzip ternGzip = new TernEchoService.CountingGzip();
  private final GrpcJavaEchoService.CountingGzip peerGzip = new GrpcJavaEchoService.CountingGzip();
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws IOException {
    CompressorRegistry compressors = CompressorRegistry.newEmptyInstance();
    compressors.register(ternGzip);
    server =
        cleanup.register(
            ServerBuilder.forPort(0)
                .addService(service.definition())
                .compressorRegistry(compressors)
                .decompressorRegistry(
                    DecompressorRegistry.emptyInstance()
                        .with(ternGzip, true)
                        .with(dev.tern.Codec.Identity.NONE, false))
                .build()
                .start());
    io.grpc.CompressorRegistry peerCompressors = io.grpc.CompressorRegistry.newEmptyInstance();
    peerCompressors.register(peerGzip);
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .usePlaintext()
            .compressorRegistry(peerCompressors)
            .decompressorRegistry(
                io.grpc.DecompressorRegistry.emptyInstance()
                    .with(peerGzip, true)
                    .with(Codec.Identity.NONE, false))
            .build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow();
    if (!channel.awaitTermination(10, TimeUnit.SECONDS)) {
      throw new AssertionError("the grpc-java channel did not terminate");
    }
  }

  /** Records what grpc-java's client reports for one call. Thread-safe. */
  private static final class Recorder extends ClientCall.Listener<byte[]> {
    final CompletableFuture<Metadata> headers = new CompletableFuture<>();
    final BlockingQueue<byte[]> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<Outcome> closed = new CompletableFuture<>();
    private final Semaphore readySignals = new Semaphore(0);

    @Override
    public void onHeaders(Metadata responseHeaders) {
      headers.complete(responseHeaders);
    }

    @Override
    public void onMessage(byte[] message) {
      messages.add(message);
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      List<byte[]> received = new ArrayList<>(messages);
      closed.complete(new Outcome(headers.getNow(null), received, status, trailers));
    }

    @Override
    public void onReady() {
      readySignals.release();
    }

    /** Waits until {@code call.isReady()}, checking again after each {@code onReady}. */
    void awaitReady(ClientCall<?, ?> call) {
      long deadline = System.nanoTime() + Await.TIMEOUT.toNanos();
      try {
        while (true) {
          readySignals.drainPermits();
          if (call.isReady()) {
            return;
          }
          if (!readySignals.tryAcquire(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
            throw new AssertionError("timed out waiting for the call to be ready");
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for the call to be ready", e);
      }
    }

    Outcome awaitClose() {
      return Await.get(closed, "the call to close");
    }

    Status awaitStatus() {
      return awaitClose().status();
    }
  }

  /** What a call gave back: headers (null if none came), messages, status and trailers. */
  private record Outcome(
      Metadata headers, List<byte[]> messages, Status status, Metadata trailers) {
    List<String> texts() {
      List<String> texts = new ArrayList<>();
      for (byte[] message : messages) {
        texts.add(utf8(message));
      }
      return texts;
    }
  }

  private Outcome call(
      String method, MethodType type, CallOptions options, Metadata headers, byte[]... requests) {
    ClientCall<byte[], byte[]> call =
        channel.newCall(GrpcJavaEchoService.method(method, type), options);
    Recorder recorder = new Recorder();
    call.start(recorder, headers);
    call.request(Integer.MAX_VALUE);
    for (byte[] request : requests) {
      call.sendMessage(request);
    }
    call.halfClose();
    return recorder.awaitClose();
  }

  private Outcome unary(String method, CallOptions options, Metadata headers, byte[] request) {
    return call(method, MethodType.UNARY, options, headers, request);
  }

  private static Metadata.Key<String> ascii(String name) {
    return Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
  }

  private static Metadata.Key<byte[]> binary(String name) {
    return Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER);
  }

  private static Metadata single(String name, String value) {
    Metadata metadata = new Metadata();
    metadata.put(ascii(name), value);
    return metadata;
  }

  // ---------------------------------------------------------------- the four call types

  @Test
  void unary() {
    Outcome outcome =
        unary(InteropContract.UNARY, CallOptions.DEFAULT, new Metadata(), utf8("hello"));

    assertThat(outcome.status().getCode()).isEqualTo(Status.Code.OK);
    assertThat(outcome.texts()).containsExactly("hello");
    assertThat(outcome.headers()).isNotNull();
  }

  @Test
  void serverStreaming() {
    Outcome outcome =
        call(
            InteropContract.SERVER_STREAMING,
            MethodType.SERVER_STREAMING,
            CallOptions.DEFAULT,
            new Metadata(),
            utf8("300"));

    assertThat(outcome.status().getCode()).isEqualTo(Status.Code.OK);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      expected.add(Integer.toString(i));
    }
    assertThat(outcome.texts()).containsExactlyElementsOf(expected);
  }

  @Test
  void clientStreaming() {
    Outcome outcome =
        call(
            InteropContract.CLIENT_STREAMING,
            MethodType.CLIENT_STREAMING,
            CallOptions.DEFAULT,
            new Metadata(),
            utf8("a"),
            utf8("bc"),
            utf8(""),
            utf8("def"));

    assertThat(outcome.status().getCode()).isEqualTo(Status.Code.OK);
    assertThat(outcome.texts()).containsExactly("abcdef");
  }

  @Test
  void bidiStreamingPingPong() {
    ClientCall<byte[], byte[]> call =
        channel.newCall(
            GrpcJavaEchoService.method(InteropContract.BIDI, MethodType.BIDI_STREAMING),
            CallOptions.DEFAULT);
    Recorder recorder = new Recorder();
    call.start(recorder, new Metadata());
    for (String ping : List.of("one", "two", "three")) {
      call.request(1);
      call.sendMessage(utf8(ping));
      assertThat(utf8(Await.poll(recorder.messages, "the echo of " + ping))).isEqualTo(ping);
    }
    call.halfClose();

    assertThat(recorder.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void hundredsOfConcurrentStreamsOnOneConnection() {
    int streams = 300;
    List<ClientCall<byte[], byte[]>> calls = new ArrayList<>();
    List<Recorder> recorders = new ArrayList<>();
    for (int i = 0; i < streams; i++) {
      ClientCall<byte[], byte[]> call =
          channel.newCall(
              GrpcJavaEchoService.method(InteropContract.BIDI, MethodType.BIDI_STREAMING),
              CallOptions.DEFAULT);
      Recorder recorder = new Recorder();
      call.start(recorder, new Metadata());
      call.request(1);
      call.sendMessage(utf8("stream " + i));
      calls.add(call);
      recorders.add(recorder);
    }
    // All answered while all are open; then all end.
    for (int i = 0; i < streams; i++) {
      assertThat(utf8(Await.poll(recorders.get(i).messages, "echo " + i))).isEqualTo("stream " + i);
    }
    calls.forEach(ClientCall::halfClose);
    for (Recorder recorder : recorders) {
      assertThat(recorder.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    }
  }

  // ---------------------------------------------------------------- metadata

  @Test
  void metadataRoundTripsBothWays() {
    byte[] large = InteropContract.pattern(1500);
    large[0] = (byte) 0xff; // not text
    String largeAscii = "v".repeat(3000);
    Metadata headers = new Metadata();
    headers.put(ascii("echo-initial-text"), "Hello, world ~!@#$%^&*()");
    headers.put(ascii("echo-initial-multi"), "first");
    headers.put(ascii("echo-initial-multi"), "second");
    headers.put(ascii("echo-initial-large"), largeAscii);
    // Lengths 1 to 5 need every kind of base64 padding (none, one, two characters).
    for (int length = 1; length <= 5; length++) {
      headers.put(binary("echo-initial-pad-bin"), InteropContract.pattern(length));
    }
    headers.put(binary("echo-trailing-all-bin"), InteropContract.allByteValues());
    headers.put(binary("echo-trailing-empty-bin"), new byte[0]);
    headers.put(binary("echo-trailing-large-bin"), large);
    headers.put(ascii("echo-trailing-text"), "in the trailers");

    Outcome outcome = unary(InteropContract.UNARY, CallOptions.DEFAULT, headers, utf8("meta"));

    assertThat(outcome.status().getCode()).isEqualTo(Status.Code.OK);
    Metadata initial = outcome.headers();
    assertThat(initial.get(ascii("echo-initial-text"))).isEqualTo("Hello, world ~!@#$%^&*()");
    assertThat(initial.getAll(ascii("echo-initial-multi"))).containsExactly("first", "second");
    assertThat(initial.get(ascii("echo-initial-large"))).isEqualTo(largeAscii);
    assertThat(initial.getAll(binary("echo-initial-pad-bin")))
        .containsExactly(
            InteropContract.pattern(1),
            InteropContract.pattern(2),
            InteropContract.pattern(3),
            InteropContract.pattern(4),
            InteropContract.pattern(5));
    assertThat(initial.containsKey(ascii("echo-trailing-text"))).isFalse();
    Metadata trailers = outcome.trailers();
    assertThat(trailers.get(binary("echo-trailing-all-bin")))
        .isEqualTo(InteropContract.allByteValues());
    assertThat(trailers.get(binary("echo-trailing-empty-bin"))).isEmpty();
    assertThat(trailers.get(binary("echo-trailing-large-bin"))).isEqualTo(large);
    assertThat(trailers.get(ascii("echo-trailing-text"))).isEqualTo("in the trailers");
  }

  // ---------------------------------------------------------------- errors

  @Test
  void errorDescriptionWithNonAsciiAndPercentRoundTripsExactlyInTrailersOnly() {
    Metadata headers = single(InteropContract.FAIL_CODE, "9");
    headers.put(ascii("echo-trailing-why"), "because");

    Outcome outcome =
        unary(InteropContract.FAIL, CallOptions.DEFAULT, headers, utf8(TRICKY_DESCRIPTION));

    assertThat(outcome.status().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(outcome.status().getDescription()).isEqualTo(TRICKY_DESCRIPTION);
    assertThat(outcome.headers()).as("headers of a Trailers-Only response").isNull();
    assertThat(outcome.messages()).isEmpty();
    assertThat(outcome.trailers().get(ascii("echo-trailing-why"))).isEqualTo("because");
  }

  @Test
  void errorAfterHeadersAndAMessage() {
    Metadata headers = single(InteropContract.FAIL_CODE, "10");
    headers.put(ascii(InteropContract.FAIL_AFTER_HEADERS), "yes");
    headers.put(ascii("echo-initial-where"), "headers");
    headers.put(ascii("echo-trailing-where"), "trailers");

    Outcome outcome =
        unary(InteropContract.FAIL, CallOptions.DEFAULT, headers, utf8("aborted: 50% done"));

    assertThat(outcome.status().getCode()).isEqualTo(Status.Code.ABORTED);
    assertThat(outcome.status().getDescription()).isEqualTo("aborted: 50% done");
    assertThat(outcome.headers().get(ascii("echo-initial-where"))).isEqualTo("headers");
    assertThat(outcome.texts()).containsExactly("aborted: 50% done");
    assertThat(outcome.trailers().get(ascii("echo-trailing-where"))).isEqualTo("trailers");
  }

  @Test
  void unknownMethodAndUnknownServiceAreUnimplemented() {
    Outcome method =
        unary("interop.Echo/Nope", CallOptions.DEFAULT, new Metadata(), utf8("anyone?"));
    Outcome service =
        unary("interop.Nobody/Unary", CallOptions.DEFAULT, new Metadata(), utf8("anyone?"));

    assertThat(method.status().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(method.status().getDescription()).contains("interop.Echo/Nope");
    assertThat(service.status().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(service.status().getDescription()).contains("interop.Nobody/Unary");
  }

  // ---------------------------------------------------------------- deadlines and cancellation

  @Test
  void deadlineReachesTheServerAndExpiresDeadlineExceeded() {
    // Connected first, so the deadline measures the call, not a cold first connection.
    assertThat(
            unary(InteropContract.UNARY, CallOptions.DEFAULT, new Metadata(), utf8("warm"))
                .status()
                .getCode())
        .isEqualTo(Status.Code.OK);
    Outcome outcome =
        unary(
            InteropContract.HANG,
            CallOptions.DEFAULT.withDeadlineAfter(1, TimeUnit.SECONDS),
            new Metadata(),
            utf8("wait"));

    assertThat(outcome.status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    Optional<Long> remaining = poll(service.hangDeadlineNanos, "the server to see the call");
    assertThat(remaining).as("deadline the server saw").isPresent();
    assertThat(remaining.get()).isLessThanOrEqualTo(TimeUnit.SECONDS.toNanos(1));
    assertThat(poll(service.hangCancellations, "the server to see the call cancelled")).isNotNull();
  }

  @Test
  void clientCancellationReachesTheServer() {
    ClientCall<byte[], byte[]> call =
        channel.newCall(
            GrpcJavaEchoService.method(InteropContract.HANG, MethodType.UNARY),
            CallOptions.DEFAULT);
    Recorder listener = new Recorder();
    call.start(listener, new Metadata());
    call.request(1);
    call.sendMessage(utf8("wait"));
    call.halfClose();
    assertThat(poll(service.hangDeadlineNanos, "the server to see the call"))
        .as("no deadline, so no grpc-timeout")
        .isEmpty();

    call.cancel("changed my mind", null);

    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(poll(service.hangCancellations, "the server to see the call cancelled")).isNotNull();
  }

  // ---------------------------------------------------------------- compression

  @Test
  void gzipBothWays() {
    byte[] request = InteropContract.pattern(64 * 1024);
    Metadata headers = single(InteropContract.REPLY_GZIP, "yes");

    Outcome outcome =
        unary(InteropContract.UNARY, CallOptions.DEFAULT.withCompression("gzip"), headers, request);

    assertThat(outcome.status().getCode()).isEqualTo(Status.Code.OK);
    assertThat(outcome.messages()).singleElement().isEqualTo(request);
    assertThat(peerGzip.compressed).as("requests grpc-java compressed").hasPositiveValue();
    assertThat(ternGzip.decompressed).as("requests Tern decompressed").hasPositiveValue();
    assertThat(ternGzip.compressed).as("responses Tern compressed").hasPositiveValue();
    assertThat(peerGzip.decompressed).as("responses grpc-java decompressed").hasPositiveValue();
  }

  @Test
  void requestInAnEncodingTheServerLacksIsUnimplemented() throws InterruptedException {
    // This grpc-java client knows deflate; the Tern server here accepts gzip only.
    io.grpc.CompressorRegistry withDeflate = io.grpc.CompressorRegistry.newEmptyInstance();
    withDeflate.register(new GrpcJavaEchoService.Deflate());
    ManagedChannel deflating =
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .usePlaintext()
            .compressorRegistry(withDeflate)
            .build();
    try {
      ClientCall<byte[], byte[]> call =
          deflating.newCall(
              GrpcJavaEchoService.method(InteropContract.UNARY, MethodType.UNARY),
              CallOptions.DEFAULT.withCompression("deflate"));
      Recorder recorder = new Recorder();
      call.start(recorder, new Metadata());
      call.request(1);
      call.sendMessage(InteropContract.pattern(1000));
      call.halfClose();

      Status status = recorder.awaitStatus();
      assertThat(status.getCode()).as("status %s", status).isEqualTo(Status.Code.UNIMPLEMENTED);
    } finally {
      deflating.shutdownNow();
      deflating.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  // ---------------------------------------------------------------- flow control

  @Test
  void largeServerStreamToASlowReaderIsFlowControlled() {
    int size = 256 * 1024;
    int count = 64; // 16 MiB
    ClientCall<byte[], byte[]> call =
        channel.newCall(
            GrpcJavaEchoService.method(InteropContract.BULK, MethodType.SERVER_STREAMING),
            CallOptions.DEFAULT);
    Recorder recorder = new Recorder();
    call.start(recorder, new Metadata());
    call.sendMessage(utf8(count + ":" + size));
    call.halfClose();

    // Nothing requested: the server must be held back long before it sent everything.
    int sentWhenHeldBack = poll(service.bulkHeldBack, "the server to find its call not ready");
    assertThat(sentWhenHeldBack).isLessThanOrEqualTo(MAX_AHEAD_BYTES / size);
    assertThat(recorder.messages).isEmpty();
    byte[] expected = InteropContract.pattern(size);
    for (int i = 0; i < count; i++) {
      call.request(1);
      byte[] message = Await.poll(recorder.messages, "message " + i);
      assertThat(Arrays.equals(message, expected)).as("message %d intact", i).isTrue();
    }
    assertThat(recorder.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void largeClientStreamSentWhileReadyArrivesWhole() {
    int size = 256 * 1024;
    int count = 64; // 16 MiB
    ClientCall<byte[], byte[]> call =
        channel.newCall(
            GrpcJavaEchoService.method(InteropContract.COUNT, MethodType.CLIENT_STREAMING),
            CallOptions.DEFAULT);
    Recorder recorder = new Recorder();
    call.start(recorder, new Metadata());
    call.request(1);
    byte[] chunk = InteropContract.pattern(size);
    for (int i = 0; i < count; i++) {
      recorder.awaitReady(call);
      call.sendMessage(chunk);
    }
    call.halfClose();

    Outcome outcome = recorder.awaitClose();
    assertThat(outcome.status().getCode()).isEqualTo(Status.Code.OK);
    assertThat(outcome.texts()).containsExactly((long) size * count + " intact");
  }

  // ---------------------------------------------------------------- message size

  @Test
  void messagesOfExactlyTheDefaultLimitPassBothWays() {
    byte[] request = InteropContract.pattern(DEFAULT_MAX_MESSAGE);

    Outcome outcome = unary(InteropContract.UNARY, CallOptions.DEFAULT, new Metadata(), request);

    assertThat(outcome.status().getCode())
        .as("status %s", outcome.status())
        .isEqualTo(Status.Code.OK);
    assertThat(outcome.messages()).singleElement().isEqualTo(request);
  }

  @Test
  void requestOverTheServersLimitIsResourceExhausted() {
    Outcome outcome =
        unary(
            InteropContract.UNARY,
            CallOptions.DEFAULT,
            new Metadata(),
            new byte[DEFAULT_MAX_MESSAGE + 1]);

    assertThat(outcome.status().getCode())
        .as("status %s", outcome.status())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void gzippedRequestExpandingOverTheServersLimitIsResourceExhausted() {
    // Zeros gzip to about a thousandth of their size: small on the wire, twice the limit expanded.
    Outcome outcome =
        unary(
            InteropContract.UNARY,
            CallOptions.DEFAULT.withCompression("gzip"),
            new Metadata(),
            new byte[2 * DEFAULT_MAX_MESSAGE]);

    assertThat(outcome.status().getCode())
        .as("status %s", outcome.status())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(outcome.status().getDescription()).contains(Integer.toString(DEFAULT_MAX_MESSAGE));
    assertThat(peerGzip.compressed).as("requests grpc-java compressed").hasPositiveValue();
  }

  @Test
  void responseOverTheClientsLimitIsResourceExhausted() {
    Metadata headers =
        single(InteropContract.REPLY_SIZE, Integer.toString(DEFAULT_MAX_MESSAGE + 1));

    Outcome outcome = unary(InteropContract.UNARY, CallOptions.DEFAULT, headers, utf8("big"));

    assertThat(outcome.status().getCode())
        .as("status %s", outcome.status())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(outcome.messages()).isEmpty();
  }

  private static <T> T poll(BlockingQueue<T> queue, String what) {
    return Await.poll(queue, what);
  }
}
