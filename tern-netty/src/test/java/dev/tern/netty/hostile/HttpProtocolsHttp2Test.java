package dev.tern.netty.hostile;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.Status;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.testing.EchoHttpProtocol;
import dev.tern.netty.testing.HeldHttpProtocol;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A server's protocols beside gRPC over HTTP/2 with prior knowledge, on the same connection as gRPC
 * calls: requests that are not gRPC reach the protocol as exchanges on their streams, a large body
 * flows as the protocol consumes it, a reset reaches the protocol, and gRPC calls beside them still
 * work.
 */
class HttpProtocolsHttp2Test {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final EchoHttpProtocol echo = new EchoHttpProtocol();
  private final HeldHttpProtocol held = new HeldHttpProtocol();
  private Server server;
  private int port;

  @BeforeEach
  void start() throws Exception {
    server =
        cleanup.register(
            NettyServerBuilder.forPort(0)
                .httpProtocols(echo, held)
                .addService(new EchoService())
                .build()
                .start());
    port = server.getPort();
  }

  private static List<String[]> request(String method, String path, String contentType) {
    List<String[]> headers = new ArrayList<>();
    headers.add(new String[] {":method", method});
    headers.add(new String[] {":scheme", "http"});
    headers.add(new String[] {":path", path});
    headers.add(new String[] {":authority", "127.0.0.1"});
    if (contentType != null) {
      headers.add(new String[] {"content-type", contentType});
    }
    return headers;
  }

  @Test
  void getAndLargePostBesideAGrpcCall() throws Exception {
    try (RawHttp2Connection connection = RawHttp2Connection.open(port)) {
      connection.writeHeaders(1, true, request("GET", "/hello", null));
      RawHttp2Connection.StreamEnd hello = connection.awaitStreamEnd(1);
      assertThat(hello.headers()).containsEntry(":status", "200");
      assertThat(new String(hello.data(), US_ASCII)).isEqualTo("hello h2");

      // Larger than the stream's initial window (64 KiB): it only arrives if the protocol's
      // consumption opens the window again.
      byte[] body = new byte[200_000];
      connection.writeHeaders(3, false, request("POST", "/x", "text/count"));
      for (int offset = 0; offset < body.length; offset += RawHttp2Connection.MIN_MAX_FRAME_SIZE) {
        int end = Math.min(body.length, offset + RawHttp2Connection.MIN_MAX_FRAME_SIZE);
        byte[] part = new byte[end - offset];
        connection.writeData(3, end == body.length, part);
      }
      RawHttp2Connection.StreamEnd echoed = connection.awaitStreamEnd(3);
      assertThat(echoed.headers()).containsEntry(":status", "200");
      assertThat(echoed.headers()).containsEntry("x-received", "200000");
      assertThat(new String(echoed.data(), US_ASCII)).isEqualTo("received 200000");

      connection.writeHeaders(
          5, false, RawHttp2Connection.grpcRequestHeaders("/tern.testing.Echo/Unary"));
      connection.writeData(5, true, RawHttp2Connection.grpcMessage(0, "hi".getBytes(US_ASCII)));
      RawHttp2Connection.StreamEnd grpc = connection.awaitStreamEnd(5);
      assertThat(grpc.headers()).containsEntry("grpc-status", "0");
    }
  }

  /**
   * A protocol that answers while the server reads (here at the request's HEADERS), with more of
   * the client's frames in the same read: the answer is flushed, and the frames after it are still
   * answered on the same connection.
   */
  @Test
  void anAnswerWrittenWithinAReadLeavesTheRestOfTheReadAnswered() throws Exception {
    try (RawHttp2Connection connection = RawHttp2Connection.open(port)) {
      ByteArrayOutputStream oneWrite = new ByteArrayOutputStream();
      oneWrite.writeBytes(
          RawHttp2Connection.frame(
              RawHttp2Connection.HEADERS,
              RawHttp2Connection.FLAG_END_STREAM | RawHttp2Connection.FLAG_END_HEADERS,
              1,
              RawHttp2Connection.headerBlock(request("GET", "/hello", null))));
      oneWrite.writeBytes(
          RawHttp2Connection.frame(
              RawHttp2Connection.PING, 0, 0, ByteBuffer.allocate(8).putLong(42).array()));
      connection.writeRaw(oneWrite.toByteArray());

      RawHttp2Connection.StreamEnd hello = connection.awaitStreamEnd(1);
      assertThat(hello.headers()).containsEntry(":status", "200");
      assertThat(new String(hello.data(), US_ASCII)).isEqualTo("hello h2");
      RawHttp2Connection.Frame ack = connection.awaitFrame(RawHttp2Connection.PING);
      assertThat(ack).as("the PING's acknowledgement").isNotNull();
      assertThat(ack.flags() & RawHttp2Connection.FLAG_ACK).isEqualTo(RawHttp2Connection.FLAG_ACK);
      assertThat(ByteBuffer.wrap(ack.payload()).getLong()).isEqualTo(42);

      connection.writeHeaders(3, true, request("GET", "/hello", null));
      assertThat(connection.awaitStreamEnd(3).headers()).containsEntry(":status", "200");
    }
  }

  @Test
  void unknownContentTypeStillGets415() throws Exception {
    try (RawHttp2Connection connection = RawHttp2Connection.open(port)) {
      connection.writeHeaders(1, true, request("POST", "/x", "text/unknown"));
      RawHttp2Connection.StreamEnd end = connection.awaitStreamEnd(1);
      assertThat(end.headers()).containsEntry(":status", "415");
      assertThat(new String(end.data(), US_ASCII))
          .isEqualTo("415 Content-Type 'text/unknown' is not supported\n");
    }
  }

  @Test
  void grpcWithACodecOtherThanProtoGets415() throws Exception {
    try (RawHttp2Connection connection = RawHttp2Connection.open(port)) {
      List<String[]> headers = RawHttp2Connection.grpcRequestHeaders("/tern.testing.Echo/Unary");
      headers.set(4, new String[] {"content-type", "application/grpc+json"});
      connection.writeHeaders(1, false, headers);
      connection.writeData(1, true, RawHttp2Connection.grpcMessage(0, "{}".getBytes(US_ASCII)));
      RawHttp2Connection.StreamEnd end = connection.awaitStreamEnd(1);
      assertThat(end.headers()).containsEntry(":status", "415");
      assertThat(new String(end.data(), US_ASCII))
          .isEqualTo("415 Content-Type 'application/grpc+json' is not supported\n");

      headers.set(4, new String[] {"content-type", "application/grpc+proto; charset=x"});
      connection.writeHeaders(3, false, headers);
      connection.writeData(3, true, RawHttp2Connection.grpcMessage(0, "hi".getBytes(US_ASCII)));
      assertThat(connection.awaitStreamEnd(3).headers()).containsEntry("grpc-status", "0");
    }
  }

  @Test
  void clientResetReachesTheProtocol() throws Exception {
    try (RawHttp2Connection connection = RawHttp2Connection.open(port)) {
      connection.writeHeaders(1, false, request("POST", "/x", "text/echo"));
      connection.writeData(1, false, new byte[10]);
      connection.writeRstStream(1, RawHttp2Connection.CANCEL);
      Status status = echo.aborts.poll(20, TimeUnit.SECONDS);
      assertThat(status).isNotNull();
      assertThat(status.getCode()).isEqualTo(Status.Code.CANCELLED);
    }
  }

  @Test
  void connectionLostMidBodyAbortsTheExchange() throws Exception {
    HeldHttpProtocol.Held exchange;
    try (RawHttp2Connection connection = RawHttp2Connection.open(port)) {
      connection.writeHeaders(1, false, request("POST", "/x", "text/held"));
      connection.writeData(1, false, new byte[100]);
      exchange = held.next();
    }
    // CANCELLED for a clean close, UNAVAILABLE when the close reached the server as a reset (the
    // client closed with bytes unread); either way the protocol hears of it.
    assertThat(exchange.aborted.get(20, TimeUnit.SECONDS).getCode())
        .isIn(Status.Code.CANCELLED, Status.Code.UNAVAILABLE);
  }

  @Test
  void protocolGivingUpResetsTheStreamWithCancel() throws Exception {
    try (RawHttp2Connection connection = RawHttp2Connection.open(port)) {
      connection.writeHeaders(1, true, request("GET", "/held", null));
      HeldHttpProtocol.Held exchange = held.next();
      exchange.abort();
      RawHttp2Connection.StreamEnd end = connection.awaitStreamEnd(1);
      assertThat(end.reset()).isTrue();
      assertThat(end.last().errorCode()).isEqualTo(RawHttp2Connection.CANCEL);
      assertThat(exchange.aborted).isNotDone();
    }
  }

  @Test
  void answerBeforeTheBodyEndsAsksTheClientToStopWithNoError() throws Exception {
    try (RawHttp2Connection connection = RawHttp2Connection.open(port)) {
      connection.writeHeaders(1, false, request("POST", "/x", "text/held"));
      connection.writeData(1, false, new byte[10]);
      HeldHttpProtocol.Held exchange = held.next();
      exchange.respond("early");
      RawHttp2Connection.StreamEnd end = connection.awaitStreamEnd(1);
      assertThat(end.headers()).containsEntry(":status", "200");
      assertThat(new String(end.data(), US_ASCII)).isEqualTo("early");
      RawHttp2Connection.Frame reset = connection.awaitFrame(RawHttp2Connection.RST_STREAM);
      assertThat(reset.streamId()).isEqualTo(1);
      assertThat(reset.errorCode()).isEqualTo(RawHttp2Connection.NO_ERROR);
      assertThat(exchange.aborted).isNotDone();
    }
  }

  @Test
  void gracefulShutdownLetsTheExchangeInFlightFinish() throws Exception {
    try (RawHttp2Connection connection = RawHttp2Connection.open(port)) {
      connection.writeHeaders(1, true, request("GET", "/held", null));
      HeldHttpProtocol.Held exchange = held.next();
      server.shutdown();
      connection.awaitFrame(RawHttp2Connection.GOAWAY);
      // The second GOAWAY follows the acknowledgement of the server's PING, as a live client's.
      RawHttp2Connection.Frame ping = connection.awaitFrame(RawHttp2Connection.PING);
      connection.writeFrame(
          RawHttp2Connection.PING, RawHttp2Connection.FLAG_ACK, 0, ping.payload());
      exchange.respond("finished");
      RawHttp2Connection.StreamEnd end = connection.awaitStreamEnd(1);
      assertThat(end.headers()).containsEntry(":status", "200");
      assertThat(new String(end.data(), US_ASCII)).isEqualTo("finished");
      connection.awaitClose();
      assertThat(server.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
      assertThat(exchange.aborted).isNotDone();
    }
  }

  @Test
  void prefaceFedOneByteAtATimeIsHttp2() throws Exception {
    try (RawHttp2Connection connection = RawHttp2Connection.connect(port)) {
      for (byte b : RawHttp2Connection.PREFACE) {
        connection.writeRaw(new byte[] {b});
      }
      connection.writeFrame(RawHttp2Connection.SETTINGS, 0, 0, new byte[0]);
      connection.writeHeaders(1, true, request("GET", "/hello", null));
      RawHttp2Connection.StreamEnd hello = connection.awaitStreamEnd(1);
      assertThat(new String(hello.data(), US_ASCII)).isEqualTo("hello h2");
    }
  }
}
