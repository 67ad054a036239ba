package dev.tern.services.binarylog;

import static dev.tern.services.binarylog.TestCalls.byCall;
import static dev.tern.services.binarylog.TestCalls.events;
import static dev.tern.services.binarylog.TestCalls.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.tern.BinaryLog;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.binarylog.v1.Address;
import dev.tern.services.binarylog.v1.GrpcLogEntry;
import dev.tern.services.binarylog.v1.MetadataEntry;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Tern channel and a Tern server on the HTTP/2 transport, each with its own binary log to a file;
 * the files, read back, hold every call's events in order with the expected contents.
 */
class BinaryLogEndToEndTest {
  @TempDir Path dir;

  private final EchoService echo = new EchoService();
  private Server server;
  private ManagedChannel channel;
  private BinaryLog serverLog;
  private BinaryLog clientLog;

  private void start(String serverFilter, String clientFilter) throws Exception {
    serverLog =
        BinaryLogs.createBinaryLog(new FileBinaryLogSink(dir.resolve("server.log")), serverFilter);
    clientLog =
        BinaryLogs.createBinaryLog(new FileBinaryLogSink(dir.resolve("client.log")), clientFilter);
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(echo.definition())
            .setBinaryLog(serverLog)
            .build()
            .start();
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .usePlaintext()
            .setBinaryLog(clientLog)
            .build();
  }

  /** Stops both ends and closes the logs, so the files are complete. */
  private void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      channel = null;
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      server = null;
    }
    if (clientLog != null) {
      clientLog.close();
      clientLog = null;
    }
    if (serverLog != null) {
      serverLog.close();
      serverLog = null;
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    stop();
  }

  private static MetadataEntry entry(String key, byte[] value) {
    return MetadataEntry.newBuilder().setKey(key).setValue(ByteString.copyFrom(value)).build();
  }

  private static MetadataEntry entry(String key, String value) {
    return entry(key, value.getBytes(StandardCharsets.US_ASCII));
  }

  private static ByteString utf8(String text) {
    return ByteString.copyFromUtf8(text);
  }

  @Test
  void unaryStreamingFailingAndCancelledCallsAreLoggedOnBothSides() throws Exception {
    start("*", "*");
    int port = server.getPort();

    assertThat(TestCalls.unary(channel).getCode()).isEqualTo(Status.Code.OK);
    assertThat(TestCalls.chat(channel).getCode()).isEqualTo(Status.Code.OK);
    assertThat(TestCalls.fail(channel).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(TestCalls.cancelled(channel, echo.hangStarted).getCode())
        .isEqualTo(Status.Code.CANCELLED);
    echo.hangCancelled.get(5, TimeUnit.SECONDS);
    stop();

    List<List<GrpcLogEntry>> serverCalls = byCall(read(dir.resolve("server.log")));
    List<List<GrpcLogEntry>> clientCalls = byCall(read(dir.resolve("client.log")));
    assertThat(serverCalls).hasSize(4);
    assertThat(clientCalls).hasSize(4);
    List<String> unary =
        List.of(
            "CLIENT_HEADER 1",
            "CLIENT_MESSAGE 2",
            "CLIENT_HALF_CLOSE 3",
            "SERVER_HEADER 4",
            "SERVER_MESSAGE 5",
            "SERVER_TRAILER 6");
    List<String> chat =
        List.of(
            "CLIENT_HEADER 1",
            "CLIENT_MESSAGE 2",
            "SERVER_HEADER 3",
            "SERVER_MESSAGE 4",
            "CLIENT_MESSAGE 5",
            "SERVER_MESSAGE 6",
            "CLIENT_HALF_CLOSE 7",
            "SERVER_TRAILER 8");
    List<String> fail =
        List.of("CLIENT_HEADER 1", "CLIENT_MESSAGE 2", "CLIENT_HALF_CLOSE 3", "SERVER_TRAILER 4");
    assertThat(events(serverCalls.get(0))).isEqualTo(unary);
    assertThat(events(clientCalls.get(0))).isEqualTo(unary);
    assertThat(events(serverCalls.get(1))).isEqualTo(chat);
    assertThat(events(clientCalls.get(1))).isEqualTo(chat);
    assertThat(events(serverCalls.get(2))).isEqualTo(fail);
    assertThat(events(clientCalls.get(2))).isEqualTo(fail);
    assertThat(events(serverCalls.get(3)))
        .containsExactly("CLIENT_HEADER 1", "CLIENT_MESSAGE 2", "CANCEL 3");
    assertThat(events(clientCalls.get(3)))
        .containsExactly("CLIENT_HEADER 1", "CLIENT_MESSAGE 2", "CANCEL 3", "SERVER_TRAILER 4");

    // Every entry: its side, a call id shared within the call only, a timestamp.
    assertThat(serverCalls.stream().flatMap(List::stream))
        .allSatisfy(e -> assertThat(e.getLogger()).isEqualTo(GrpcLogEntry.Logger.LOGGER_SERVER));
    assertThat(clientCalls.stream().flatMap(List::stream))
        .allSatisfy(e -> assertThat(e.getLogger()).isEqualTo(GrpcLogEntry.Logger.LOGGER_CLIENT));
    assertThat(
            java.util.stream.Stream.concat(serverCalls.stream(), clientCalls.stream())
                .map(call -> call.get(0).getCallId())
                .distinct())
        .hasSize(8)
        .doesNotContain(0L);
    assertThat(serverCalls.get(0))
        .allSatisfy(
            e -> {
              assertThat(e.getTimestamp().getSeconds()).isPositive();
              assertThat(e.getPayloadTruncated()).isFalse();
            });

    // The server's unary call.
    List<GrpcLogEntry> s = serverCalls.get(0);
    GrpcLogEntry header = s.get(0);
    assertThat(header.getClientHeader().getMethodName()).isEqualTo("/test.Echo/Unary");
    assertThat(header.getClientHeader().getAuthority()).isEqualTo("127.0.0.1:" + port);
    assertThat(header.getClientHeader().getTimeout().getSeconds()).isBetween(1L, 30L);
    assertThat(header.getClientHeader().getMetadata().getEntryList())
        .containsExactly(entry("client-header", "c"), entry("client-bin", new byte[] {1, 2, 3}));
    assertThat(header.getPeer().getType()).isEqualTo(Address.Type.TYPE_IPV4);
    assertThat(header.getPeer().getAddress()).isEqualTo("127.0.0.1");
    assertThat(header.getPeer().getIpPort()).isPositive().isNotEqualTo(port);
    assertThat(s.get(1).getMessage().getLength()).isEqualTo(5);
    assertThat(s.get(1).getMessage().getData()).isEqualTo(utf8("hello"));
    assertThat(s.get(3).getServerHeader().getMetadata().getEntryList())
        .containsExactly(entry("echo-header", "h"));
    assertThat(s.get(4).getMessage().getData()).isEqualTo(utf8("hello!"));
    assertThat(s.get(5).getTrailer().getStatusCode()).isZero();
    assertThat(s.get(5).getTrailer().getMetadata().getEntryList())
        .containsExactly(entry("echo-trailer", "t"));
    assertThat(s.subList(1, 6)).allSatisfy(e -> assertThat(e.hasPeer()).isFalse());

    // The client's unary call: the peer comes with the server's headers.
    List<GrpcLogEntry> c = clientCalls.get(0);
    assertThat(c.get(0).getClientHeader().getMethodName()).isEqualTo("/test.Echo/Unary");
    assertThat(c.get(0).getClientHeader().getAuthority()).isEqualTo("127.0.0.1:" + port);
    assertThat(c.get(0).getClientHeader().getTimeout().getSeconds()).isBetween(1L, 30L);
    assertThat(c.get(0).getClientHeader().getMetadata().getEntryList())
        .containsExactly(entry("client-header", "c"), entry("client-bin", new byte[] {1, 2, 3}));
    assertThat(c.get(0).hasPeer()).isFalse();
    assertThat(c.get(3).getPeer())
        .isEqualTo(
            Address.newBuilder()
                .setType(Address.Type.TYPE_IPV4)
                .setAddress("127.0.0.1")
                .setIpPort(port)
                .build());
    assertThat(c.get(3).getServerHeader().getMetadata().getEntryList())
        .containsExactly(entry("echo-header", "h"));
    assertThat(c.get(4).getMessage().getData()).isEqualTo(utf8("hello!"));
    assertThat(c.get(5).getTrailer().getMetadata().getEntryList())
        .containsExactly(entry("echo-trailer", "t"));

    // Chat: the messages in order, no timeout.
    assertThat(serverCalls.get(1).get(0).getClientHeader().hasTimeout()).isFalse();
    assertThat(
            serverCalls.get(1).stream()
                .filter(GrpcLogEntry::hasMessage)
                .map(e -> e.getMessage().getData().toStringUtf8()))
        .containsExactly("a", "A", "b", "B");

    // Fail: code, message and details on both sides; the client gets the peer with the trailer.
    for (List<GrpcLogEntry> call : List.of(serverCalls.get(2), clientCalls.get(2))) {
      GrpcLogEntry trailer = call.get(3);
      assertThat(trailer.getTrailer().getStatusCode())
          .isEqualTo(Status.Code.INVALID_ARGUMENT.value());
      assertThat(trailer.getTrailer().getStatusMessage()).isEqualTo("bad request");
      assertThat(trailer.getTrailer().getStatusDetails())
          .isEqualTo(EchoService.FAIL_DETAILS.toByteString());
      assertThat(trailer.getTrailer().getMetadata().getEntryList())
          .containsExactly(entry("echo-trailer", "f"));
    }
    assertThat(serverCalls.get(2).get(3).hasPeer()).isFalse();
    assertThat(clientCalls.get(2).get(3).getPeer().getIpPort()).isEqualTo(port);

    // Cancelled: the client's own trailer says CANCELLED and, made up locally, has no peer.
    assertThat(clientCalls.get(3).get(3).getTrailer().getStatusCode())
        .isEqualTo(Status.Code.CANCELLED.value());
    assertThat(clientCalls.get(3).get(3).hasPeer()).isFalse();
  }

  @Test
  void limitsTruncateHeadersAndMessagesAndMarkThePayloadTruncated() throws Exception {
    start("test.Echo/Unary{h:20;m:3}", "*{h}");

    assertThat(TestCalls.unary(channel).getCode()).isEqualTo(Status.Code.OK);
    assertThat(TestCalls.chat(channel).getCode()).isEqualTo(Status.Code.OK);
    stop();

    List<List<GrpcLogEntry>> serverCalls = byCall(read(dir.resolve("server.log")));
    assertThat(serverCalls).as("the server logs Unary only").hasSize(1);
    List<GrpcLogEntry> s = serverCalls.get(0);
    // client-header: c is 14 bytes; client-bin (13 more) does not fit in 20.
    assertThat(s.get(0).getClientHeader().getMetadata().getEntryList())
        .containsExactly(entry("client-header", "c"));
    assertThat(s.get(0).getPayloadTruncated()).isTrue();
    assertThat(s.get(1).getMessage().getLength()).isEqualTo(5);
    assertThat(s.get(1).getMessage().getData()).isEqualTo(utf8("hel"));
    assertThat(s.get(1).getPayloadTruncated()).isTrue();
    assertThat(s.get(3).getServerHeader().getMetadata().getEntryList())
        .containsExactly(entry("echo-header", "h"));
    assertThat(s.get(3).getPayloadTruncated()).isFalse();
    assertThat(s.get(4).getMessage().getLength()).isEqualTo(6);
    assertThat(s.get(4).getMessage().getData()).isEqualTo(utf8("hel"));
    assertThat(s.get(4).getPayloadTruncated()).isTrue();

    // The client logs headers in full and only the lengths of messages.
    List<List<GrpcLogEntry>> clientCalls = byCall(read(dir.resolve("client.log")));
    assertThat(clientCalls).hasSize(2);
    List<GrpcLogEntry> c = clientCalls.get(0);
    assertThat(c.get(0).getClientHeader().getMetadata().getEntryCount()).isEqualTo(2);
    assertThat(c.get(0).getPayloadTruncated()).isFalse();
    assertThat(c.get(1).getMessage().getLength()).isEqualTo(5);
    assertThat(c.get(1).getMessage().getData()).isEmpty();
    assertThat(c.get(1).getPayloadTruncated()).isTrue();
    assertThat(
            clientCalls.get(1).stream()
                .filter(GrpcLogEntry::hasMessage)
                .map(e -> e.getMessage().getLength()))
        .containsExactly(1, 1, 1, 1);
  }

  @Test
  void excludedMethodsAndTheEmptyFilterLogNothing() throws Exception {
    start("test.Echo/*,-test.Echo/Chat", "");

    assertThat(TestCalls.unary(channel).getCode()).isEqualTo(Status.Code.OK);
    assertThat(TestCalls.chat(channel).getCode()).isEqualTo(Status.Code.OK);
    stop();

    List<List<GrpcLogEntry>> serverCalls = byCall(read(dir.resolve("server.log")));
    assertThat(serverCalls).hasSize(1);
    assertThat(serverCalls.get(0).get(0).getClientHeader().getMethodName())
        .isEqualTo("/test.Echo/Unary");
    assertThat(read(dir.resolve("client.log"))).isEmpty();
  }

  @Test
  void aMalformedFilterIsRefusedWhenTheLogIsCreated() throws Exception {
    try (FileBinaryLogSink sink = new FileBinaryLogSink(dir.resolve("unused.log"))) {
      assertThatThrownBy(() -> BinaryLogs.createBinaryLog(sink, "*,test.Echo/Unary{h:ten}"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "Invalid binary log filter \"*,test.Echo/Unary{h:ten}\": term"
                  + " \"test.Echo/Unary{h:ten}\" at offset 2: expected a number of bytes after"
                  + " 'h:' at offset 20");
    }
  }
}
