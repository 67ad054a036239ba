package dev.tern.netty;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.testing.EchoHttpProtocol;
import dev.tern.netty.testing.HeldHttpProtocol;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The HTTP/1.1 side of a server's port as a client sees it, byte for byte: requests pipelined
 * behind a response still being written wait their turn, {@code Expect: 100-continue}, HTTP/1.0,
 * chunked and whole responses, a body larger than the inbound window flowing only as the protocol
 * consumes it, bad input, and shutdown (graceful and now) with an exchange in flight.
 */
class Http1ConnectionTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final EchoHttpProtocol echo = new EchoHttpProtocol();
  private final HeldHttpProtocol held = new HeldHttpProtocol();
  private Server server;

  private int start() throws IOException {
    return start(NettyServerBuilder.forPort(0));
  }

  private int start(NettyServerBuilder builder) throws IOException {
    server =
        cleanup.register(
            builder.httpProtocols(held, echo).addService(new EchoService()).build().start());
    return server.getPort();
  }

  private static Socket connect(int port) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", port), (int) TIMEOUT.toMillis());
    socket.setSoTimeout((int) TIMEOUT.toMillis());
    socket.setTcpNoDelay(true);
    return socket;
  }

  private static void send(Socket socket, String text) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(text.getBytes(US_ASCII));
    out.flush();
  }

  /** Everything the server sends until it closes the connection. */
  private static String readToEnd(Socket socket) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    socket.getInputStream().transferTo(out);
    return out.toString(US_ASCII);
  }

  /** Reads until {@code marker} has arrived; returns everything read. */
  private static String readUntil(Socket socket, String marker) throws IOException {
    InputStream in = socket.getInputStream();
    StringBuilder read = new StringBuilder();
    while (read.indexOf(marker) < 0) {
      int b = in.read();
      if (b < 0) {
        throw new AssertionError("connection closed before '" + marker + "'; read: " + read);
      }
      read.append((char) b);
    }
    return read.toString();
  }

  @Test
  void pipelinedRequestsWithBodiesWaitForTheResponseInFlightAndAreAnsweredInOrder()
      throws Exception {
    int port = start();
    try (Socket socket = connect(port)) {
      send(
          socket,
          "GET /held HTTP/1.1\r\nHost: a\r\n\r\n"
              + "POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: text/echo\r\nContent-Length: 5\r\n\r\n"
              + "abcde"
              + "POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: text/echo\r\n"
              + "Transfer-Encoding: chunked\r\n\r\n3\r\nxyz\r\n0\r\n\r\n"
              + "GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
      HeldHttpProtocol.Held first = held.next();
      assertThat(first.bodyEnded.get(20, TimeUnit.SECONDS)).isZero();
      // Nothing after the held request was served while its response was pending.
      assertThat(echo.aborts).isEmpty();
      first.respond("first");
      String all = readToEnd(socket);
      int one = all.indexOf("first");
      int two = all.indexOf("abcde");
      int three = all.indexOf("xyz");
      int four = all.indexOf("hello http/1.1");
      assertThat(one).isPositive();
      assertThat(two).isGreaterThan(one);
      assertThat(three).isGreaterThan(two);
      assertThat(four).isGreaterThan(three);
      assertThat(all).startsWith("HTTP/1.1 200 OK\r\n").contains("content-length: 5\r\n");
    }
  }

  @Test
  void expectContinueGets100BeforeTheBodyIsSent() throws Exception {
    int port = start();
    try (Socket socket = connect(port)) {
      send(
          socket,
          "POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: text/echo\r\nContent-Length: 5\r\n"
              + "Expect: 100-continue\r\nConnection: close\r\n\r\n");
      assertThat(readUntil(socket, "\r\n\r\n")).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
      send(socket, "abcde");
      String response = readToEnd(socket);
      assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\nabcde");
    }
  }

  @Test
  void refusedRequestThatExpects100ContinueIsAnsweredAtOnceAndClosed() throws Exception {
    int port = start();
    try (Socket socket = connect(port)) {
      send(
          socket,
          "POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: text/unknown\r\nContent-Length: 5\r\n"
              + "Expect: 100-continue\r\n\r\n");
      String response = readToEnd(socket);
      assertThat(response)
          .startsWith("HTTP/1.1 415 Unsupported Media Type\r\n")
          .contains("connection: close\r\n")
          .endsWith("415 Content-Type 'text/unknown' is not supported\n")
          .doesNotContain("100 Continue");
    }
  }

  @Test
  void unknownExpectationGets417() throws Exception {
    int port = start();
    try (Socket socket = connect(port)) {
      send(
          socket,
          "POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: text/echo\r\nContent-Length: 5\r\n"
              + "Expect: something-else\r\n\r\n");
      assertThat(readToEnd(socket))
          .startsWith("HTTP/1.1 417 Expectation Failed\r\n")
          .endsWith("417 Expectation 'something-else' is not supported\n");
    }
  }

  @Test
  void refusedRequestsKeepTheConnectionForTheNext() throws Exception {
    int port = start();
    try (Socket socket = connect(port)) {
      send(
          socket,
          "DELETE /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi"
              + "POST /x HTTP/1.1\r\nHost: a\r\n"
              + "Content-Type: text/unknown\r\nContent-Length: 5\r\n\r\n12345"
              + "GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
      String all = readToEnd(socket);
      int notAllowed = all.indexOf("HTTP/1.1 405 Method Not Allowed\r\n");
      int unsupported = all.indexOf("HTTP/1.1 415 Unsupported Media Type\r\n");
      int hello = all.indexOf("HTTP/1.1 200 OK\r\n");
      assertThat(notAllowed).isZero();
      assertThat(unsupported).isGreaterThan(notAllowed);
      assertThat(hello).isGreaterThan(unsupported);
      assertThat(all.substring(0, unsupported))
          .contains("grpc-status: 13\r\n")
          .contains("grpc-message: Method 'DELETE' is not supported\r\n")
          .endsWith("405 Method 'DELETE' is not supported\n");
      assertThat(all.substring(unsupported, hello))
          .contains("grpc-status: 13\r\n")
          .endsWith("415 Content-Type 'text/unknown' is not supported\n");
      assertThat(all).endsWith("hello http/1.1");
    }
  }

  @Test
  void grpcOverHttp11IsToldItNeedsHttp2AndClosed() throws Exception {
    int port = start();
    try (Socket socket = connect(port)) {
      send(
          socket,
          "POST /tern.testing.Echo/Unary HTTP/1.1\r\nHost: a\r\n"
              + "Content-Type: application/grpc\r\nContent-Length: 5\r\n\r\n\0\0\0\0\0");
      assertThat(readToEnd(socket))
          .startsWith("HTTP/1.1 415 Unsupported Media Type\r\n")
          .contains("connection: close\r\n")
          .endsWith("415 gRPC requires HTTP/2; this request came over HTTP/1.1\n");
    }
  }

  @Test
  void headersOverTheMetadataLimitGet431AndClose() throws Exception {
    int port = start(NettyServerBuilder.forPort(0).maxInboundMetadataSize(1024));
    try (Socket socket = connect(port)) {
      send(socket, "GET /hello HTTP/1.1\r\nHost: a\r\nx-big: " + "v".repeat(2000) + "\r\n\r\n");
      assertThat(readToEnd(socket))
          .startsWith("HTTP/1.1 431 Request Header Fields Too Large\r\n")
          .contains("grpc-status: 8\r\n")
          .contains("connection: close\r\n")
          .endsWith("431 Request headers larger than 1024 bytes\n");
    }
  }

  @Test
  void requestLineOver8KibGets414AndClose() throws Exception {
    int port = start();
    try (Socket socket = connect(port)) {
      send(socket, "GET /" + "a".repeat(9000) + " HTTP/1.1\r\nHost: a\r\n\r\n");
      assertThat(readToEnd(socket))
          .startsWith("HTTP/1.1 414 Request-URI Too Long\r\n")
          .endsWith("414 Request line larger than 8192 bytes\n");
    }
  }

  @Test
  void requestFedOneByteAtATimeIsServed() throws Exception {
    int port = start();
    try (Socket socket = connect(port)) {
      for (byte b :
          "GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n".getBytes(US_ASCII)) {
        socket.getOutputStream().write(b);
        socket.getOutputStream().flush();
      }
      assertThat(readToEnd(socket)).startsWith("HTTP/1.1 200 OK\r\n").endsWith("hello http/1.1");
    }
  }

  @Test
  void http10ClientsGetResponsesDelimitedByLengthOrByTheClose() throws Exception {
    int port = start();
    try (Socket socket = connect(port)) {
      send(socket, "GET /hello HTTP/1.0\r\n\r\n");
      assertThat(readToEnd(socket))
          .startsWith("HTTP/1.1 200 OK\r\n")
          .contains("content-length: 14\r\n")
          .endsWith("hello http/1.1");
    }
    try (Socket socket = connect(port)) {
      send(socket, "GET /held HTTP/1.0\r\n\r\n");
      held.next().respondInParts("ab", "cd");
      assertThat(readToEnd(socket))
          .startsWith("HTTP/1.1 200 OK\r\n")
          .doesNotContain("transfer-encoding")
          .contains("connection: close\r\n")
          .endsWith("\r\n\r\nabcd");
    }
  }

  @Test
  void streamedResponseIsChunkedAndWholeOneHasAContentLength() throws Exception {
    int port = start();
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    URI uri = URI.create("http://127.0.0.1:" + port + "/held");
    CompletableFuture<HttpResponse<String>> streamed =
        client.sendAsync(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    held.next().respondInParts("one ", "two ", "three");
    HttpResponse<String> response = streamed.get(20, TimeUnit.SECONDS);
    assertThat(response.body()).isEqualTo("one two three");
    assertThat(response.headers().firstValue("transfer-encoding")).hasValue("chunked");
    assertThat(response.headers().firstValue("content-length")).isEmpty();

    CompletableFuture<HttpResponse<String>> whole =
        client.sendAsync(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    held.next().respond("all at once");
    response = whole.get(20, TimeUnit.SECONDS);
    assertThat(response.body()).isEqualTo("all at once");
    assertThat(response.headers().firstValue("content-length")).hasValue("11");
  }

  @Test
  void bodyLargerThanTheWindowArrivesOnlyAsTheProtocolConsumesIt() throws Exception {
    int port = start();
    byte[] body = new byte[4 * 1024 * 1024];
    CompletableFuture<HttpResponse<String>> sent =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .build()
            .sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/x"))
                    .header("content-type", "text/held")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    HeldHttpProtocol.Held exchange = held.next();
    int window = 64 * 1024;
    while (!exchange.bodyEnded.isDone()) {
      exchange.awaitUnconsumed(window);
      exchange.consumeAll();
    }
    exchange.respond("got it");
    assertThat(sent.get(20, TimeUnit.SECONDS).body()).isEqualTo("got it");
    assertThat(exchange.received()).isEqualTo(body.length);
    // The window, plus at most one part the codec decoded before the connection stopped taking
    // them (parts are at most 64 KiB): never the megabytes the client had to send.
    assertThat(exchange.mostUnconsumed()).isBetween((long) window, 2L * window);
  }

  @Test
  void gracefulShutdownFinishesTheExchangeInFlightAndClosesIdleConnections() throws Exception {
    int port = start();
    try (Socket busy = connect(port);
        Socket idle = connect(port)) {
      send(idle, "GET /hello HTTP/1.1\r\nHost: a\r\n\r\n");
      readUntil(idle, "hello http/1.1");
      send(busy, "GET /held HTTP/1.1\r\nHost: a\r\n\r\n");
      HeldHttpProtocol.Held exchange = held.next();

      server.shutdown();
      assertThat(idle.getInputStream().read()).isEqualTo(-1);
      assertThat(server.awaitTermination(100, TimeUnit.MILLISECONDS)).isFalse();

      exchange.respond("finished");
      assertThat(readToEnd(busy))
          .startsWith("HTTP/1.1 200 OK\r\n")
          .contains("connection: close\r\n")
          .endsWith("finished");
      assertThat(server.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
      assertThat(exchange.aborted).isNotDone();
    }
  }

  @Test
  void idleConnectionClosesAtTheIdleLimitButNotWhileAnExchangeIsInFlight() throws Exception {
    int port = start(NettyServerBuilder.forPort(0).maxConnectionIdle(300, TimeUnit.MILLISECONDS));
    try (Socket busy = connect(port);
        Socket idle = connect(port)) {
      send(busy, "GET /held HTTP/1.1\r\nHost: a\r\n\r\n");
      HeldHttpProtocol.Held exchange = held.next();
      send(idle, "GET /hello HTTP/1.1\r\nHost: a\r\n\r\n");
      readUntil(idle, "hello http/1.1");
      // Blocks until the idle limit closes it (the socket's timeout is far longer).
      assertThat(idle.getInputStream().read()).isEqualTo(-1);
      assertThat(exchange.aborted).isNotDone();
      exchange.respond("still served");
      assertThat(readUntil(busy, "still served")).startsWith("HTTP/1.1 200 OK\r\n");
    }
  }

  @Test
  void shutdownNowAbortsTheExchangeInFlight() throws Exception {
    int port = start();
    try (Socket socket = connect(port)) {
      send(
          socket,
          "POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: text/held\r\nContent-Length: 9\r\n\r\n");
      HeldHttpProtocol.Held exchange = held.next();
      server.shutdownNow();
      assertThat(exchange.aborted.get(20, TimeUnit.SECONDS).getCode())
          .isEqualTo(Status.Code.UNAVAILABLE);
      readToEnd(socket);
      assertThat(server.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void protocolGivingUpBeforeItsAnswerSends500AndCloses() throws Exception {
    int port = start();
    try (Socket socket = connect(port)) {
      send(socket, "GET /held HTTP/1.1\r\nHost: a\r\n\r\n");
      HeldHttpProtocol.Held exchange = held.next();
      exchange.abort();
      assertThat(readToEnd(socket))
          .startsWith("HTTP/1.1 500 Internal Server Error\r\n")
          .contains("connection: close\r\n");
      assertThat(exchange.aborted).isNotDone();
    }
  }

  @Test
  void absoluteFormTargetReachesTheProtocolAsAPath() throws Exception {
    int port = start();
    try (Socket socket = connect(port)) {
      send(
          socket,
          "GET http://example.com/hello HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n");
      assertThat(readToEnd(socket)).endsWith("hello http/1.1");
    }
  }

  @Test
  void grpcOverHttp2StillWorksOnTheSamePort() throws Exception {
    int port = start();
    ManagedChannel channel =
        cleanup.register(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
    assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "hi"))
        .isEqualTo("hi");
  }

  @Test
  void bytesThatAreNeitherProtocolGetAnHttp2GoAwayNotAnHttp1Response() throws Exception {
    int port = start();
    try (Socket socket = connect(port)) {
      send(socket, "INVALID CONNECTION PREFACE\r\n\r\n");
      assertThat(goAwayErrorCodes(readAllBytes(socket))).containsExactly(PROTOCOL_ERROR);
    }
  }

  @Test
  void tlsClientHelloOnTheCleartextPortIsRefusedAtOnce() throws Exception {
    int port = start();
    try (Socket socket = connect(port)) {
      // A ClientHello's record header and the start of its body: no request line starts so.
      socket.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00});
      socket.getOutputStream().flush();
      assertThat(goAwayErrorCodes(readAllBytes(socket))).containsExactly(PROTOCOL_ERROR);
    }
  }

  private static final int PROTOCOL_ERROR = 1;

  private static byte[] readAllBytes(Socket socket) throws IOException {
    return socket.getInputStream().readAllBytes();
  }

  /** The error codes of the GOAWAY frames in {@code bytes}, read as HTTP/2 frames. */
  private static java.util.List<Integer> goAwayErrorCodes(byte[] bytes) {
    java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(bytes);
    java.util.List<Integer> codes = new java.util.ArrayList<>();
    while (in.remaining() >= 9) {
      int length = (in.getShort() & 0xffff) << 8 | in.get() & 0xff;
      int type = in.get();
      in.get(); // flags
      in.getInt(); // stream id
      assertThat(in.remaining())
          .as("frame of type %d's payload", type)
          .isGreaterThanOrEqualTo(length);
      if (type == 7) {
        in.getInt(); // last stream id
        codes.add(in.getInt());
        in.position(in.position() + length - 8);
      } else {
        in.position(in.position() + length);
      }
    }
    assertThat(in.remaining()).as("bytes after the last whole frame").isZero();
    return codes;
  }
}
