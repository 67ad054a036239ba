package dev.tern.netty.internal.server;

import static dev.tern.netty.testing.Http2Peer.grpcMessage;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.internal.http2.Http2Connection;
import dev.tern.netty.testing.Http2Peer;
import dev.tern.netty.testing.Http2Peer.Data;
import dev.tern.netty.testing.Http2Peer.GoAway;
import dev.tern.netty.testing.Http2Peer.Headers;
import dev.tern.netty.testing.Http2Peer.Ping;
import dev.tern.netty.testing.Http2Peer.RstStream;
import dev.tern.netty.testing.Http2Peer.WindowUpdate;
import dev.tern.testing.RecordingServerStreamListener;
import dev.tern.testing.RecordingServerTransportListener;
import dev.tern.testing.RecordingServerTransportListener.StreamCreated;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ServerHandler} alone on an {@link EmbeddedChannel}, driven frame by frame by a client that
 * is the test ({@link Http2Peer}): what the runtime sees of each request (streams, metadata,
 * messages, half-close, cancellation) and what the client sees of each answer (statuses, resets,
 * GOAWAYs, window updates).
 */
class ServerHandlerTest {
  private static final int MAX_METADATA = 1024;
  private static final String METHOD = "pkg.Greeter/SayHello";

  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  private EmbeddedChannel channel;
  private NettyServerTransport transport;
  private RecordingServerTransportListener listener;
  private Http2Peer client;

  @BeforeEach
  void connect() throws Exception {
    channel = new EmbeddedChannel();
    transport =
        new NettyServerTransport(channel, ServerOptions.withLimits(4 * 1024 * 1024, MAX_METADATA));
    listener = new RecordingServerTransportListener(transport, 4 * 1024 * 1024);
    transport.setTransportListener(listener);
    // As ProtocolDetector does once the preface says HTTP/2: the coalescer and the handler go in.
    channel.pipeline().addLast("detector", new ChannelInboundHandlerAdapter());
    transport.useHttp2(channel.pipeline().context("detector"));
    client = new Http2Peer(channel);
    client.clientPreface();
    client.frames(); // the server's SETTINGS, its ack of ours, the connection window
    client.settingsAck();
    assertThat(listener.awaitReady()).isNotNull();
  }

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
    assertThat(listener.violations()).isEmpty();
  }

  private static Http2Headers request(String path) {
    return new DefaultHttp2Headers()
        .method("POST")
        .scheme("http")
        .path(path)
        .authority("example.com")
        .add("content-type", "application/grpc")
        .add("te", "trailers");
  }

  /** Opens stream 3 with a well-formed request and returns what the runtime was handed. */
  private StreamCreated openCall() {
    client.headers(3, request("/" + METHOD).add("x-user", "alice"), false);
    return listener.awaitStream();
  }

  @Test
  void requestHeadersStartACallWithTheMethodAndMetadata() throws Exception {
    StreamCreated call = openCall();

    assertThat(call.fullMethodName()).isEqualTo(METHOD);
    assertThat(call.headers().get(Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER)))
        .isEqualTo("alice");
    // Transport headers are the transport's: the application sees only the metadata.
    assertThat(call.headers().keys()).containsExactly("x-user");
    assertThat(call.stream().getAuthority()).isEqualTo("example.com");
    assertThat(client.frames()).isEmpty();
  }

  @Test
  void aContentTypeThatIsNotGrpcIsAnswered415WithAStatusAndAText() throws Exception {
    Http2Headers notGrpc = request("/" + METHOD).set("content-type", "text/html");
    client.headers(3, notGrpc, true);

    List<Http2Peer.Frame> frames = client.frames();
    assertThat(frames).hasSize(2);
    Http2Headers head = ((Headers) frames.get(0)).headers();
    assertThat(head.status()).hasToString("415");
    assertThat(head.get("grpc-status")).hasToString("" + Status.Code.INTERNAL.value());
    assertThat(head.get("grpc-message")).hasToString("Content-Type 'text/html' is not supported");
    Data body = (Data) frames.get(1);
    assertThat(body.endStream()).isTrue();
    assertThat(new String(body.bytes(), StandardCharsets.UTF_8))
        .isEqualTo("415 Content-Type 'text/html' is not supported\n");
    assertThat(listener.streamsNotTaken()).isZero();
  }

  @Test
  void aMethodOtherThanPostIsAnswered405() throws Exception {
    client.headers(3, request("/" + METHOD).method("GET"), true);

    Headers head = client.frames(Headers.class).get(0);
    assertThat(head.headers().status()).hasToString("405");
    assertThat(head.headers().get("grpc-message")).hasToString("Method 'GET' is not supported");
  }

  @Test
  void aMissingPathIsAMalformedRequestResetWithProtocolError() throws Exception {
    Http2Headers noPath = request("/" + METHOD);
    noPath.remove(":path");
    client.headers(3, noPath, true);

    assertThat(client.frames()).containsExactly(new RstStream(3, Http2Error.PROTOCOL_ERROR.code()));
    assertThat(listener.streamsNotTaken()).isZero();
  }

  @Test
  void aPathThatIsNotServiceSlashMethodIsUnimplemented404() throws Exception {
    client.headers(3, request("SayHello"), true);

    List<Headers> answer = client.frames(Headers.class);
    assertThat(answer).hasSize(1);
    assertThat(answer.get(0).endStream()).isTrue();
    assertThat(answer.get(0).headers().status()).hasToString("404");
    assertThat(answer.get(0).headers().get("grpc-status"))
        .hasToString("" + Status.Code.UNIMPLEMENTED.value());
  }

  @Test
  void metadataOverTheLimitIsAnswered431WithoutReachingTheRuntime() throws Exception {
    char[] big = new char[MAX_METADATA + 100];
    Arrays.fill(big, 'a');
    client.headers(3, request("/" + METHOD).add("x-big", new String(big)), true);

    List<Headers> answer = client.frames(Headers.class);
    assertThat(answer).hasSize(1);
    Http2Headers head = answer.get(0).headers();
    assertThat(head.status()).hasToString("431");
    assertThat(head.get("grpc-status")).hasToString("" + Status.Code.RESOURCE_EXHAUSTED.value());
    assertThat(head.get("grpc-message"))
        .hasToString("Request header metadata larger than " + MAX_METADATA + " bytes");
    assertThat(listener.streamsNotTaken()).isZero();
    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void dataDeliversRequestedMessagesAndEndStreamHalfCloses() throws Exception {
    StreamCreated call = openCall();
    RecordingServerStreamListener stream = call.listener();
    stream.request(call.stream(), 2);

    client.data(3, grpcMessage("hello"), false);
    client.data(3, grpcMessage("again"), true);

    assertThat(new String(stream.awaitMessage(), StandardCharsets.UTF_8)).isEqualTo("hello");
    assertThat(new String(stream.awaitMessage(), StandardCharsets.UTF_8)).isEqualTo("again");
    assertThat(stream.isHalfClosed()).isTrue();
    assertThat(stream.isClosed()).isFalse();
  }

  @Test
  void aMessageIsNotDeliveredBeforeItIsRequested() throws Exception {
    StreamCreated call = openCall();
    RecordingServerStreamListener stream = call.listener();

    client.data(3, grpcMessage("early"), true);

    assertThat(stream.messagesRead()).isZero();
    assertThat(stream.isHalfClosed()).isFalse(); // the half-close waits behind the message
    stream.request(call.stream(), 1);
    assertThat(new String(stream.awaitMessage(), StandardCharsets.UTF_8)).isEqualTo("early");
    assertThat(stream.isHalfClosed()).isTrue();
  }

  @Test
  void theResponseGoesOutAsHeadersDataAndTrailers() throws Exception {
    StreamCreated call = openCall();
    call.stream().writeHeaders(new Metadata(), false);
    call.stream().writeMessage(new ByteArrayInputStream("hi".getBytes(StandardCharsets.UTF_8)));
    call.stream().flush();
    call.stream().close(Status.OK, new Metadata());

    List<Http2Peer.Frame> frames = client.frames();
    assertThat(frames).hasSize(3);
    assertThat(((Headers) frames.get(0)).headers().status()).hasToString("200");
    assertThat(((Data) frames.get(1)).bytes()).isEqualTo(grpcMessage("hi"));
    Headers trailers = (Headers) frames.get(2);
    assertThat(trailers.endStream()).isTrue();
    assertThat(trailers.headers().get("grpc-status")).hasToString("0");
  }

  @Test
  void rstStreamFromTheClientCancelsTheCall() throws Exception {
    StreamCreated call = openCall();

    client.rstStream(3, Http2Error.CANCEL);

    Status status = call.listener().awaitClosed();
    assertThat(status.getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(status.getDescription()).isEqualTo("client cancelled (RST_STREAM CANCEL)");
  }

  @Test
  void gracefulShutdownIsTwoGoAwaysAroundAPingAndLetsTheCallFinish() throws Exception {
    StreamCreated call = openCall();

    transport.shutdown();

    List<Http2Peer.Frame> first = client.frames();
    assertThat(first)
        .containsExactly(
            new GoAway(Integer.MAX_VALUE, Http2Error.NO_ERROR.code(), ""),
            new Ping(false, Http2Connection.SHUTDOWN_PING));
    client.ping(true, Http2Connection.SHUTDOWN_PING);
    assertThat(client.frames()).containsExactly(new GoAway(3, Http2Error.NO_ERROR.code(), ""));

    // A request sent after the GOAWAY is refused, safe to retry elsewhere.
    client.headers(5, request("/" + METHOD), true);
    assertThat(client.frames()).containsExactly(new RstStream(5, Http2Error.REFUSED_STREAM.code()));

    // The call in flight finishes; then the connection closes.
    assertThat(channel.isOpen()).isTrue();
    call.stream().close(Status.OK, new Metadata());
    client.data(3, grpcMessage("late"), true); // the client's end of the stream
    client.frames();
    assertThat(call.listener().awaitClosed().getCode()).isEqualTo(Status.Code.OK);
    assertThat(channel.isOpen()).isFalse();
    listener.awaitTerminated();
  }

  @Test
  void streamWindowIsReturnedAsTheApplicationReadsMessages() throws Exception {
    StreamCreated call = openCall();
    // Over half of the stream's window (1 MiB), in 16 KiB frames: nothing goes back unread.
    byte[] message = grpcMessage(new byte[600 * 1024]);
    int sent = 0;
    while (sent < message.length) {
      int length = Math.min(16 * 1024, message.length - sent);
      client.data(3, Arrays.copyOfRange(message, sent, sent + length), false);
      sent += length;
    }
    assertThat(client.frames(WindowUpdate.class)).noneMatch(w -> w.streamId() == 3);

    call.listener().request(call.stream(), 1);
    assertThat(call.listener().awaitMessage()).hasSize(600 * 1024);

    List<WindowUpdate> updates = client.frames(WindowUpdate.class);
    assertThat(updates.stream().filter(w -> w.streamId() == 3).mapToInt(WindowUpdate::increment))
        .containsExactly(message.length);
  }
}
