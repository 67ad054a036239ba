package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.DATA;
import static dev.tern.netty.hostile.RawHttp2Connection.ENHANCE_YOUR_CALM;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.PROTOCOL_ERROR;
import static dev.tern.netty.hostile.RawHttp2Connection.RST_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.headers;
import static dev.tern.netty.hostile.RawHttp2Connection.lastOfType;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.testing.Await;
import dev.tern.testing.RecordingClientCallListener;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client on Tern's HTTP/2 engine against a raw server that writes frames by hand: what it puts
 * on the wire for a call, and how the server's resets and protocol errors reach the call.
 */
class ClientRawServerTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final Metadata.Key<String> TOKEN =
      Metadata.Key.of("x-token", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> TRACE =
      Metadata.Key.of("x-trace-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private ManagedChannel channel(ServerSocket listener) throws IOException {
    listener.setSoTimeout((int) Await.TIMEOUT.toMillis()); // accept fails rather than hangs
    return cleanup.register(
        NettyChannelBuilder.forAddress("127.0.0.1", listener.getLocalPort())
            .usePlaintext()
            .build());
  }

  private static RecordingClientCallListener<String> start(ManagedChannel channel, Metadata md) {
    return start(channel, md, "hello");
  }

  private static RecordingClientCallListener<String> start(
      ManagedChannel channel, Metadata md, String request) {
    return start(channel, CallOptions.DEFAULT, md, request);
  }

  private static RecordingClientCallListener<String> start(
      ManagedChannel channel, CallOptions options, Metadata md, String request) {
    ClientCall<String, String> call = channel.newCall(HostileProbe.HANG, options);
    RecordingClientCallListener<String> listener = new RecordingClientCallListener<>();
    call.start(listener, md);
    call.request(1);
    call.sendMessage(request);
    call.halfClose();
    return listener;
  }

  /** A response of one message, {@code body}, and status OK. */
  private static void respond(RawHttp2Connection raw, int streamId, String body)
      throws IOException {
    raw.writeHeaders(
        streamId, false, headers(":status", "200", "content-type", "application/grpc"));
    raw.writeData(streamId, false, grpcMessage(0, body.getBytes(UTF_8)));
    raw.writeHeaders(streamId, true, headers("grpc-status", "0"));
  }

  @Test
  void requestHeadersCarryTheCallAndItsMetadata() throws IOException {
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Metadata md = new Metadata();
      md.put(TOKEN, "abc");
      md.put(TRACE, new byte[] {1, 2, 3, (byte) 0xff});
      RecordingClientCallListener<String> call = start(channel(listener), md);
      try (RawHttp2Connection raw = RawHttp2Connection.accept(listener)) {
        Frame headers = raw.awaitFrame(HEADERS);
        Map<String, String> fields = headers.headers();
        assertThat(headers.streamId()).isEqualTo(1);
        assertThat(fields)
            .containsEntry(":method", "POST")
            .containsEntry(":scheme", "http")
            .containsEntry(":path", "/" + HostileProbe.HANG.getFullMethodName())
            .containsEntry(":authority", "127.0.0.1:" + listener.getLocalPort())
            .containsEntry("te", "trailers")
            .containsEntry("content-type", "application/grpc")
            .containsEntry("x-token", "abc")
            .containsEntry(
                "x-trace-bin",
                Base64.getEncoder().withoutPadding().encodeToString(new byte[] {1, 2, 3, -1}));
        assertThat(fields.keySet()).first().asString().startsWith(":");
        raw.writeRstStream(1, RawHttp2Connection.CANCEL);
        assertThat(call.awaitStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
      }
    }
  }

  @Test
  void eachCallOnAConnectionCarriesItsOwnAuthorityAndMetadata() throws IOException {
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      ManagedChannel channel = channel(listener);
      String channelAuthority = "127.0.0.1:" + listener.getLocalPort();
      Metadata first = new Metadata();
      first.put(TOKEN, "first");
      RecordingClientCallListener<String> call1 = start(channel, first);
      try (RawHttp2Connection raw = RawHttp2Connection.accept(listener)) {
        assertThat(raw.awaitFrame(HEADERS).headers())
            .containsEntry(":authority", channelAuthority)
            .containsEntry("x-token", "first");
        Metadata second = new Metadata();
        second.put(TOKEN, "second");
        RecordingClientCallListener<String> call2 =
            start(channel, CallOptions.DEFAULT.withAuthority("other.example"), second, "hi");
        assertThat(raw.awaitFrame(HEADERS).headers())
            .containsEntry(":path", "/" + HostileProbe.HANG.getFullMethodName())
            .containsEntry(":authority", "other.example")
            .containsEntry("x-token", "second");
        RecordingClientCallListener<String> call3 = start(channel, new Metadata());
        assertThat(raw.awaitFrame(HEADERS).headers())
            .containsEntry(":authority", channelAuthority)
            .doesNotContainKey("x-token");
        for (int id = 1; id <= 5; id += 2) {
          raw.writeRstStream(id, RawHttp2Connection.CANCEL);
        }
        assertThat(call1.awaitStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
        assertThat(call2.awaitStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
        assertThat(call3.awaitStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
      }
    }
  }

  @Test
  void anInformationalResponseBeforeTheRealOneIsSkipped() throws IOException {
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      RecordingClientCallListener<String> call = start(channel(listener), new Metadata());
      try (RawHttp2Connection raw = RawHttp2Connection.accept(listener)) {
        raw.awaitFrame(HEADERS);
        // RFC 9113 section 8.1: a 1xx head, then the response's own head, which is not trailers.
        raw.writeHeaders(1, false, headers(":status", "100"));
        raw.writeHeaders(1, false, headers(":status", "200", "content-type", "application/grpc"));
        raw.writeData(1, false, grpcMessage(0, "after 100".getBytes(UTF_8)));
        raw.writeHeaders(1, true, headers("grpc-status", "0"));

        assertThat(call.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
        assertThat(call.awaitMessage()).isEqualTo("after 100");
      }
    }
  }

  @Test
  void resetWithEnhanceYourCalmIsResourceExhausted() throws IOException {
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      RecordingClientCallListener<String> call = start(channel(listener), new Metadata());
      try (RawHttp2Connection raw = RawHttp2Connection.accept(listener)) {
        raw.awaitFrame(HEADERS);
        raw.writeRstStream(1, ENHANCE_YOUR_CALM);

        Status status = call.awaitStatus();
        assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(status.getDescription()).contains("ENHANCE_YOUR_CALM");
      }
    }
  }

  @Test
  void aProtocolErrorOfTheServerEndsTheCallsAndTheConnectionWithGoAway() throws IOException {
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      RecordingClientCallListener<String> call = start(channel(listener), new Metadata());
      try (RawHttp2Connection raw = RawHttp2Connection.accept(listener)) {
        raw.awaitFrame(HEADERS);
        raw.writeData(2, false, "x".getBytes(UTF_8)); // stream 2 is idle (servers open none)

        Status status = call.awaitStatus();
        assertThat(status.getCode()).isEqualTo(Status.Code.INTERNAL);
        assertThat(status.getDescription())
            .contains("PROTOCOL_ERROR")
            .contains("DATA on stream 2, which is idle");
        List<Frame> frames = raw.awaitClose();
        Frame goAway = lastOfType(frames, GOAWAY);
        assertThat(goAway).as("GOAWAY from the client in %s", frames).isNotNull();
        assertThat(goAway.errorCode()).isEqualTo(PROTOCOL_ERROR);
      }
    }
  }

  @Test
  void aGoAwayRefusesTheNewerStreamsSoTheCallIsRetriedOnANewConnection() throws IOException {
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      RecordingClientCallListener<String> call = start(channel(listener), new Metadata());
      try (RawHttp2Connection first = RawHttp2Connection.accept(listener)) {
        first.awaitFrame(HEADERS);
        first.writeRaw(RawHttp2Connection.frame(GOAWAY, 0, 0, new byte[8])); // last stream 0
        // Stream 1 was not processed: the call goes to a second connection, transparently.
        try (RawHttp2Connection second = RawHttp2Connection.accept(listener)) {
          Frame retried = second.awaitFrame(HEADERS);
          assertThat(retried.headers())
              .containsEntry(":path", "/" + HostileProbe.HANG.getFullMethodName());
          second.writeRstStream(retried.streamId(), RawHttp2Connection.CANCEL);
          assertThat(call.awaitStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
        }
      }
    }
  }

  /**
   * A request far larger than the server's windows waits in the client for the server's credit,
   * however long that takes, and then goes out whole: the engine keeps no bound of its own on a
   * client's DATA waiting for credit, since a request is handed to it all at once. At the engine's
   * default of 8 MiB per stream this call was reset with ENHANCE_YOUR_CALM and failed INTERNAL.
   */
  @Test
  void aSixteenMibRequestWaitsForTheServersCreditAndArrivesWhole() throws IOException {
    requestsWaitForTheServersCreditAndArriveWhole(1, 16 << 20);
  }

  /**
   * Likewise requests on several streams together larger than 64 MiB, each under 8 MiB: at the
   * engine's default per-connection bound the client ended the connection with
   * GOAWAY(ENHANCE_YOUR_CALM) and every call with it.
   */
  @Test
  void requestsTogetherOverSixtyFourMibWaitForTheServersCreditAndArriveWhole() throws IOException {
    requestsWaitForTheServersCreditAndArriveWhole(10, 7 << 20);
  }

  /**
   * {@code calls} requests of {@code size} bytes each to a server that gives no credit beyond the
   * initial 65,535 bytes of the connection until all of them have been handed to the client's
   * engine; then it gives enough for them all, reads them to their END_STREAM and answers each with
   * the number of bytes it received.
   */
  private void requestsWaitForTheServersCreditAndArriveWhole(int calls, int size)
      throws IOException {
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      ManagedChannel channel = channel(listener);
      RecordingClientCallListener<String> first = start(channel, new Metadata(), "first");
      try (RawHttp2Connection raw = RawHttp2Connection.accept(listener)) {
        // A first call makes the connection ready, so the calls below go straight to it, each
        // write in the order this thread makes it.
        assertThat(raw.awaitStreamEnd(1).last().endStream()).isTrue();
        respond(raw, 1, "first");
        assertThat(first.awaitStatus().getCode()).isEqualTo(Status.Code.OK);

        String request = "x".repeat(size);
        List<RecordingClientCallListener<String>> big = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
          big.add(start(channel, new Metadata(), request));
        }
        // The client's writes reach the connection in the order they were made: once the HEADERS
        // of this last call arrive, every byte of the requests above is with the engine.
        RecordingClientCallListener<String> last = start(channel, new Metadata(), "last");
        int lastStream = 2 * calls + 3;

        Map<Integer, Long> received = new HashMap<>();
        Set<Integer> ended = new HashSet<>();
        Frame frame;
        do {
          frame = raw.readFrame();
          assertThat(frame).as("the client closed the connection").isNotNull();
          assertThat(frame.type()).as("%s", frame).isNotIn(RST_STREAM, GOAWAY);
          count(frame, received, ended);
        } while (frame.type() != HEADERS || frame.streamId() != lastStream);

        int whole = size + 5; // the gRPC message prefix
        raw.writeWindowUpdate(0, calls * whole);
        for (int i = 0; i < calls; i++) {
          raw.writeWindowUpdate(3 + 2 * i, whole);
        }
        while (ended.size() < calls + 1) {
          frame = raw.readFrame();
          assertThat(frame).as("the client closed the connection").isNotNull();
          assertThat(frame.type()).as("%s", frame).isNotIn(RST_STREAM, GOAWAY);
          count(frame, received, ended);
        }
        for (int i = 0; i < calls; i++) {
          int stream = 3 + 2 * i;
          respond(raw, stream, received.get(stream) + " bytes");
        }
        respond(raw, lastStream, "last");

        for (RecordingClientCallListener<String> call : big) {
          assertThat(call.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
          assertThat(call.awaitMessage()).isEqualTo(whole + " bytes");
        }
        assertThat(last.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
      }
    }
  }

  /** Adds a DATA frame's payload to its stream's count; notes the streams the client ended. */
  private static void count(Frame frame, Map<Integer, Long> received, Set<Integer> ended) {
    if (frame.type() == DATA) {
      received.merge(frame.streamId(), (long) frame.payload().length, Long::sum);
    }
    if (frame.endStream()) {
      ended.add(frame.streamId());
    }
  }
}
