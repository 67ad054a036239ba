package dev.tern.netty.interop;

import static dev.tern.netty.interop.InteropContract.DEFAULT_MAX_MESSAGE;
import static dev.tern.netty.interop.InteropContract.TRICKY_DESCRIPTION;
import static dev.tern.netty.interop.InteropContract.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.Codec;
import dev.tern.CompressorRegistry;
import dev.tern.DecompressorRegistry;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.Status;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.testing.Await;
import dev.tern.testing.LogCapture;
import dev.tern.testing.RecordingClientCallListener;
import dev.tern.testing.TernCleanupExtension;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.netty.shaded.io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Tern client calling a grpc-java 1.79 server ({@link GrpcJavaEchoService}) over plaintext HTTP/2
 * on loopback: every call shape, metadata, errors, deadlines, cancellation, compression and message
 * size limits must come out as the gRPC protocol says.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class TernClientToGrpcJavaServerTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  /** grpc-java's server stream (shaded): logs a request it cannot deframe. */
  private static final String PEER_SERVER_STREAM_LOGGER =
      "io.grpc.netty.shaded.io.grpc.netty.NettyServerStream";

  /** grpc-java's server connection handler (shaded): logs stream errors. */
  private static final String PEER_SERVER_HANDLER_LOGGER =
      "io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler";

  /** Generous for any sane flow-control window plus socket buffers. */
  private static final int MAX_AHEAD_BYTES = 32 * 1024 * 1024;

  private final GrpcJavaEchoService service = new GrpcJavaEchoService();
  private final GrpcJavaEchoService.CountingGzip peerGzip = new GrpcJavaEchoService.CountingGzip();
  private final TernEchoService.CountingGzip ternGzip = new TernEchoService.CountingGzip();

  /**
   * The peer's event loops, shared by the tests: {@link #stop} waits until they have run what the
   * connection's close left them (grpc-java's server reports termination before its handlers hear
   * that the channel closed, and they log then).
   */
  private static NioEventLoopGroup peerLoops;

  private io.grpc.Server peer;

  private ManagedChannel channel;

  @BeforeAll
  static void startPeerLoops() {
    peerLoops = new NioEventLoopGroup(2, new DefaultThreadFactory("grpc-java-peer", true));
  }

  @AfterAll
  static void stopPeerLoops() throws InterruptedException {
    if (!peerLoops.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS)) {
      throw new AssertionError("the grpc-java server's event loops did not terminate");
    }
  }

  @BeforeEach
  void start() throws IOException {
    io.grpc.CompressorRegistry peerCompressors = io.grpc.CompressorRegistry.newEmptyInstance();
    peerCompressors.register(peerGzip);
    peer =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .bossEventLoopGroup(peerLoops)
            .workerEventLoopGroup(peerLoops)
            .channelType(NioServerSocketChannel.class)
            .addService(service.definition())
            .compressorRegistry(peerCompressors)
            .decompressorRegistry(
                io.grpc.DecompressorRegistry.emptyInstance()
                    .with(peerGzip, true)
                    .with(io.grpc.Codec.Identity.NONE, false))
            .build()
            .start();
    CompressorRegistry compressors = CompressorRegistry.newEmptyInstance();
    compressors.register(ternGzip);
    channel =
        cleanup.register(
            ManagedChannelBuilder.forAddress("127.0.0.1", peer.getPort())
                .usePlaintext()
                .compressorRegistry(compressors)
                .decompressorRegistry(
                    DecompressorRegistry.emptyInstance()
                        .with(ternGzip, true)
                        .with(Codec.Identity.NONE, false))
                .build());
  }

  /**
   * Closes the channel, then the peer, and waits for the peer's event loops to run what that left
   * them; idempotent (the tests that capture the peer's logs call it).
   */
  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow();
    channel.awaitTermination(10, TimeUnit.SECONDS);
    peer.shutdown();
    try {
      if (!peer.awaitTermination(10, TimeUnit.SECONDS)) {
        peer.shutdownNow();
        throw new AssertionError("the grpc-java server still had calls after the channel closed");
      }
    } finally {
      // Twice: a task queued while a loop is still closing the channel can run before the work
      // the close queues after it; the second round runs after that work.
      for (int round = 0; round < 2; round++) {
        for (EventExecutor loop : peerLoops) {
          if (!loop.submit(() -> {}).await(10, TimeUnit.SECONDS)) {
            throw new AssertionError("the grpc-java server's event loop is stuck");
          }
        }
      }
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
        channel.newCall(TernEchoService.method(method, type), options);
    RecordingClientCallListener<byte[]> listener = new RecordingClientCallListener<>();
    call.start(listener, headers);
    call.request(Integer.MAX_VALUE);
    for (byte[] request : requests) {
      call.sendMessage(request);
    }
    call.halfClose();
    RecordingClientCallListener.Closed closed = listener.awaitClose();
    List<byte[]> messages = new ArrayList<>();
    for (int i = listener.messagesReceived(); i > 0; i--) {
      messages.add(listener.awaitMessage());
    }
    assertThat(listener.violations()).isEmpty();
    Metadata responseHeaders = listener.headersReceived() ? listener.awaitHeaders() : null;
    return new Outcome(responseHeaders, messages, closed.status(), closed.trailers());
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
            TernEchoService.method(InteropContract.BIDI, MethodType.BIDI_STREAMING),
            CallOptions.DEFAULT);
    RecordingClientCallListener<byte[]> listener = new RecordingClientCallListener<>();
    call.start(listener, new Metadata());
    for (String ping : List.of("one", "two", "three")) {
      call.request(1);
      call.sendMessage(utf8(ping));
      assertThat(utf8(listener.awaitMessage())).isEqualTo(ping);
    }
    call.halfClose();

    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    assertThat(listener.violations()).isEmpty();
  }

  @Test
  void hundredsOfConcurrentStreamsOnOneConnection() {
    int streams = 300;
    List<ClientCall<byte[], byte[]>> calls = new ArrayList<>();
    List<RecordingClientCallListener<byte[]>> listeners = new ArrayList<>();
    for (int i = 0; i < streams; i++) {
      ClientCall<byte[], byte[]> call =
          channel.newCall(
              TernEchoService.method(InteropContract.BIDI, MethodType.BIDI_STREAMING),
              CallOptions.DEFAULT);
      RecordingClientCallListener<byte[]> listener = new RecordingClientCallListener<>();
      call.start(listener, new Metadata());
      call.request(1);
      call.sendMessage(utf8("stream " + i));
      calls.add(call);
      listeners.add(listener);
    }
    // All answered while all are open; then all end.
    for (int i = 0; i < streams; i++) {
      assertThat(utf8(listeners.get(i).awaitMessage())).isEqualTo("stream " + i);
    }
    calls.forEach(ClientCall::halfClose);
    for (RecordingClientCallListener<byte[]> listener : listeners) {
      assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
      assertThat(listener.violations()).isEmpty();
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
            TernEchoService.method(InteropContract.HANG, MethodType.UNARY), CallOptions.DEFAULT);
    RecordingClientCallListener<byte[]> listener = new RecordingClientCallListener<>();
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
    assertThat(ternGzip.compressed).as("requests Tern compressed").hasPositiveValue();
    assertThat(peerGzip.decompressed).as("requests grpc-java decompressed").hasPositiveValue();
    assertThat(peerGzip.compressed).as("responses grpc-java compressed").hasPositiveValue();
    assertThat(ternGzip.decompressed).as("responses Tern decompressed").hasPositiveValue();
  }

  @Test
  void requestInAnEncodingTheServerLacksIsUnimplemented() {
    // Tern knows deflate; this grpc-java server accepts gzip only.
    CompressorRegistry withDeflate = CompressorRegistry.newEmptyInstance();
    withDeflate.register(new Codec.Deflate());
    ManagedChannel deflating =
        cleanup.register(
            ManagedChannelBuilder.forAddress("127.0.0.1", peer.getPort())
                .usePlaintext()
                .compressorRegistry(withDeflate)
                .build());
    ClientCall<byte[], byte[]> call =
        deflating.newCall(
            TernEchoService.method(InteropContract.UNARY, MethodType.UNARY),
            CallOptions.DEFAULT.withCompression("deflate"));
    RecordingClientCallListener<byte[]> listener = new RecordingClientCallListener<>();
    call.start(listener, new Metadata());
    call.request(1);
    call.sendMessage(InteropContract.pattern(1000));
    call.halfClose();

    Status status = listener.awaitStatus();
    assertThat(status.getCode()).as("status %s", status).isEqualTo(Status.Code.UNIMPLEMENTED);
    deflating.shutdownNow();
  }

  // ---------------------------------------------------------------- flow control

  @Test
  void largeServerStreamToASlowReaderIsFlowControlled() {
    int size = 256 * 1024;
    int count = 64; // 16 MiB
    ClientCall<byte[], byte[]> call =
        channel.newCall(
            TernEchoService.method(InteropContract.BULK, MethodType.SERVER_STREAMING),
            CallOptions.DEFAULT);
    RecordingClientCallListener<byte[]> listener = new RecordingClientCallListener<>();
    call.start(listener, new Metadata());
    call.sendMessage(utf8(count + ":" + size));
    call.halfClose();

    // Nothing requested: the server must be held back long before it sent everything.
    int sentWhenHeldBack = poll(service.bulkHeldBack, "the server to find its call not ready");
    assertThat(sentWhenHeldBack).isLessThanOrEqualTo(MAX_AHEAD_BYTES / size);
    assertThat(listener.messagesReceived()).isZero();
    byte[] expected = InteropContract.pattern(size);
    for (int i = 0; i < count; i++) {
      call.request(1);
      assertThat(Arrays.equals(listener.awaitMessage(), expected))
          .as("message %d intact", i)
          .isTrue();
    }
    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void largeClientStreamSentWhileReadyArrivesWhole() {
    int size = 256 * 1024;
    int count = 64; // 16 MiB
    ClientCall<byte[], byte[]> call =
        channel.newCall(
            TernEchoService.method(InteropContract.COUNT, MethodType.CLIENT_STREAMING),
            CallOptions.DEFAULT);
    RecordingClientCallListener<byte[]> listener = new RecordingClientCallListener<>();
    call.start(listener, new Metadata());
    call.request(1);
    byte[] chunk = InteropContract.pattern(size);
    for (int i = 0; i < count; i++) {
      listener.awaitReady(call);
      call.sendMessage(chunk);
    }
    call.halfClose();

    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    assertThat(utf8(listener.awaitMessage())).isEqualTo((long) size * count + " intact");
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
  void requestOverTheServersLimitIsResourceExhausted() throws InterruptedException {
    // grpc-java's server logs the oversized request at WARNING, with a stack trace.
    try (LogCapture peerLog = new LogCapture(PEER_SERVER_STREAM_LOGGER, null)) {
      Outcome outcome =
          unary(
              InteropContract.UNARY,
              CallOptions.DEFAULT,
              new Metadata(),
              new byte[DEFAULT_MAX_MESSAGE + 1]);

      assertThat(outcome.status().getCode())
          .as("status %s", outcome.status())
          .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      stop();
      assertThat(peerLog.records())
          .singleElement()
          .satisfies(
              r ->
                  assertThat(r.getThrown())
                      .hasMessageContaining("RESOURCE_EXHAUSTED")
                      .hasMessageContaining(String.valueOf(DEFAULT_MAX_MESSAGE + 1)));
    }
  }

  @Test
  void responseOverTheClientsLimitIsResourceExhausted() throws InterruptedException {
    // The client resets the stream while grpc-java's server still has the rest of the response
    // queued behind flow control; grpc-java logs the writes it drops ("Stream closed before write
    // could take place") at WARNING, with a stack trace, when the reset or the connection's close
    // reaches it.
    // At WARNING here: the build's logging configuration keeps this logger at SEVERE otherwise, so
    // that a record arriving after the capture closed is not printed either.
    try (LogCapture peerLog = new LogCapture(PEER_SERVER_HANDLER_LOGGER, Level.WARNING)) {
      Metadata headers =
          single(InteropContract.REPLY_SIZE, Integer.toString(DEFAULT_MAX_MESSAGE + 1));

      Outcome outcome = unary(InteropContract.UNARY, CallOptions.DEFAULT, headers, utf8("big"));

      assertThat(outcome.status().getCode())
          .as("status %s", outcome.status())
          .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(outcome.messages()).isEmpty();
      stop();
      // None, one or two: only writes that had reached Netty's flow controller are reported at
      // WARNING; grpc-java logs those still in its own queue at FINE.
      assertThat(peerLog.records())
          .allSatisfy(
              r ->
                  assertThat(r.getThrown())
                      .hasMessageContaining("Stream closed before write could take place"));
    }
  }

  private static <T> T poll(BlockingQueue<T> queue, String what) {
    return Await.poll(queue, what);
  }
}
