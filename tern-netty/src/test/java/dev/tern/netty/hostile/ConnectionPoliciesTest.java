package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.DATA;
import static dev.tern.netty.hostile.RawHttp2Connection.ENHANCE_YOUR_CALM;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_ACK;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.PING;
import static dev.tern.netty.hostile.RawHttp2Connection.WINDOW_UPDATE;
import static dev.tern.netty.hostile.RawHttp2Connection.lastOfType;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.Grpc;
import dev.tern.InsecureChannelCredentials;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.netty.KeepAliveTimes;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.testing.Await;
import dev.tern.testing.EchoService;
import dev.tern.testing.RecordingClientCallListener;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The connection policies the Netty builders document, seen from outside: a cap on concurrent calls
 * per connection, the server's keepalive ping policy, client keepalive (set on the Netty builder or
 * on the generic one) noticing a server that went silent, and server keepalive noticing a client
 * that did.
 */
class ConnectionPoliciesTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  /** Early pings a server tolerates before GOAWAY (gRPC's usual two). */
  private static final int KEEPALIVE_STRIKES = 2;

  private final HostileProbe probe = new HostileProbe();

  private Server start(NettyServerBuilder builder) throws IOException {
    return cleanup.register(
        builder
            .addService(EchoService.definition())
            .addService(probe.definition())
            .build()
            .start());
  }

  private static NettyServerBuilder loopbackServer() {
    return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
  }

  private ManagedChannel channel(NettyChannelBuilder builder) {
    return cleanup.register(builder.usePlaintext().build());
  }

  @Test
  void callsBeyondTheConnectionsCapWaitTheirTurnAndAllComplete() throws IOException {
    int cap = 5;
    int calls = 30;
    Server server = start(loopbackServer().maxConcurrentCallsPerConnection(cap));
    ManagedChannel channel = channel(NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()));
    List<RecordingClientCallListener<String>> listeners = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      listeners.add(
          RecordingClientCallListener.startUnary(
              channel, HostileProbe.GATE, CallOptions.DEFAULT, "call " + i));
    }

    // Hold the first calls until the server has all the cap allows: only then is the peak known to
    // be reached, however the threads are scheduled.
    List<Runnable> firstCalls = new ArrayList<>();
    for (int i = 0; i < cap; i++) {
      firstCalls.add(Await.poll(probe.gated, "call " + i + " to reach the server"));
    }
    assertThat(probe.gatedNow).as("calls the server holds with the connection full").hasValue(cap);
    firstCalls.forEach(Runnable::run);

    // Release the others one at a time as they arrive; the client fills each freed slot.
    for (int i = cap; i < calls; i++) {
      Await.poll(probe.gated, "call " + i + " to reach the server").run();
    }

    for (RecordingClientCallListener<String> listener : listeners) {
      assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
      assertThat(listener.awaitMessage()).isEqualTo("released");
    }
    assertThat(probe.gatedMost).as("calls the server held at once").hasValue(cap);
  }

  @Test
  void pingsMoreOftenThanPermittedGetGoAwayTooManyPings() throws IOException {
    Server server = start(loopbackServer()); // default: one ping per 5 minutes, none when idle
    try (RawHttp2Connection raw = RawHttp2Connection.open(server.getPort())) {
      Frame goAway = null;
      for (int ping = 0; ping < 10 && goAway == null; ping++) {
        raw.writePing(ping);
        goAway = awaitPingAckOrGoAway(raw, ping);
      }

      assertThat(goAway).as("GOAWAY after repeated pings").isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(ENHANCE_YOUR_CALM);
      assertThat(debugData(goAway)).isEqualTo("too_many_pings");
    }
  }

  @Test
  void eachDataFrameOfALargeResponseMakesTheClientsNextPingWelcome() throws IOException {
    // Default policy: one ping per 5 minutes unless the server sent something since. A client that
    // pings between the flow-controlled windows of one large message (as grpc-java's BDP pinger
    // does) must not be told too_many_pings: every DATA frame the server writes is activity.
    Server server = start(loopbackServer());
    int window = 65_535; // HTTP/2's initial window; the raw client's empty SETTINGS keeps it
    try (RawHttp2Connection raw = RawHttp2Connection.open(server.getPort())) {
      raw.writeHeaders(
          1,
          false,
          RawHttp2Connection.grpcRequestHeaders("/" + HostileProbe.BULK.getFullMethodName()));
      raw.writeData(1, true, RawHttp2Connection.grpcMessage(0, "1:400000".getBytes(UTF_8)));
      long granted = window;
      long received = 0;
      int pings = 0;
      boolean ended = false;
      while (!ended) {
        Frame frame = raw.readFrame();
        assertThat(frame).as("frame after %d DATA bytes", received).isNotNull();
        assertThat(frame.type()).as("frame %s", frame).isNotEqualTo(GOAWAY);
        if (frame.type() == DATA) {
          received += frame.payload().length;
        }
        ended = frame.streamId() == 1 && frame.endStream();
        if (!ended && received == granted) {
          // The window is used up: ping, then open the next window on the stream and connection.
          raw.writePing(pings);
          assertThat(awaitPingAckOrGoAway(raw, pings)).as("answer to ping %d", pings).isNull();
          pings++;
          byte[] increment = ByteBuffer.allocate(4).putInt(window).array();
          raw.writeRaw(RawHttp2Connection.frame(WINDOW_UPDATE, 0, 1, increment));
          raw.writeRaw(RawHttp2Connection.frame(WINDOW_UPDATE, 0, 0, increment));
          granted += window;
        }
      }
      assertThat(pings).as("pings sent during the response").isGreaterThan(KEEPALIVE_STRIKES + 1);
    }
  }

  @Test
  void pingsArePermittedWhenTheServerAllowsThem() throws IOException {
    Server server =
        start(
            loopbackServer()
                .permitKeepAliveTime(0, TimeUnit.NANOSECONDS)
                .permitKeepAliveWithoutCalls(true));
    try (RawHttp2Connection raw = RawHttp2Connection.open(server.getPort())) {
      for (int ping = 0; ping < 20; ping++) {
        raw.writePing(ping);
        Frame answer = awaitPingAckOrGoAway(raw, ping);
        assertThat(answer).as("answer to ping %d", ping).isNull();
      }
    }
  }

  @Test
  void clientKeepaliveNoticesAServerThatWentSilent() throws IOException {
    Server server =
        start(
            loopbackServer()
                .permitKeepAliveTime(0, TimeUnit.NANOSECONDS)
                .permitKeepAliveWithoutCalls(true));
    try (TcpProxy proxy = TcpProxy.start(server.getPort())) {
      ManagedChannel channel =
          channel(
              KeepAliveTimes.withoutMinimum(
                      NettyChannelBuilder.forAddress("127.0.0.1", proxy.port()))
                  .keepAliveTime(100, TimeUnit.MILLISECONDS)
                  .keepAliveTimeout(200, TimeUnit.MILLISECONDS));
      RecordingClientCallListener<String> listener = startHang(channel);
      Await.poll(probe.hangsStarted, "the call to reach the server");

      proxy.goSilent();

      // No FIN, no RST, no deadline: only the unanswered keepalive PING can end this call.
      Status status = listener.awaitStatus();
      assertThat(status.getCode()).as("status %s", status).isEqualTo(Status.Code.UNAVAILABLE);
      proxy.cutConnections(); // lets the server notice too, so it can shut down cleanly
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"ManagedChannelBuilder.forTarget", "Grpc.newChannelBuilder"})
  void keepaliveSetOnTheGenericBuilderPingsAndGivesUpOnAServerThatNeverAnswers(String entryPoint)
      throws IOException {
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      String target = "127.0.0.1:" + listener.getLocalPort();
      ManagedChannelBuilder<?> builder =
          entryPoint.startsWith("Grpc")
              ? Grpc.newChannelBuilder(target, InsecureChannelCredentials.create())
              : ManagedChannelBuilder.forTarget(target).usePlaintext();
      builder
          .keepAliveTime(100, TimeUnit.MILLISECONDS)
          .keepAliveTimeout(300, TimeUnit.MILLISECONDS);
      // Only the 10-second floor is lowered, on the Netty builder the entry point returned.
      KeepAliveTimes.withoutMinimum((NettyChannelBuilder) builder);
      RecordingClientCallListener<String> call = startHang(cleanup.register(builder.build()));

      // A raw server that takes the call and reads everything but answers nothing, PINGs included.
      try (RawHttp2Connection raw = RawHttp2Connection.accept(listener)) {
        Frame ping = raw.awaitFrame(PING);
        assertThat(ping).as("a keepalive PING from the channel").isNotNull();
        assertThat(ping.flags() & FLAG_ACK).as("PING flags").isZero();

        Status status = call.awaitStatus();
        assertThat(status.getCode()).as("status %s", status).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(status.getDescription()).contains("Keepalive failed");
        raw.awaitClose(); // fails if the channel kept the connection open
      }
    }
  }

  @Test
  void serverPingsASilentClientAndClosesTheConnectionWhenThePingGoesUnanswered()
      throws IOException {
    Server server = startWithKeepAlive(100, 200);
    try (RawHttp2Connection raw = RawHttp2Connection.open(server.getPort())) {
      raw.writeHeaders(
          1,
          false,
          RawHttp2Connection.grpcRequestHeaders("/" + HostileProbe.HANG.getFullMethodName()));
      Await.poll(probe.hangsStarted, "the call to reach the server");

      // The raw client answers SETTINGS but never a PING.
      List<Frame> frames = raw.awaitClose();

      Frame ping = lastOfType(frames, PING);
      assertThat(ping).as("a PING in %s", frames).isNotNull();
      assertThat(ping.flags() & FLAG_ACK).as("PING flags").isZero();
      Frame goAway = lastOfType(frames, GOAWAY);
      assertThat(goAway).as("GOAWAY in %s", frames).isNotNull();
      assertThat(frames.indexOf(goAway))
          .as("GOAWAY after the PING")
          .isGreaterThan(frames.indexOf(ping));
      Await.poll(probe.hangsCancelled, "the server's call to be cancelled");
    }
  }

  @Test
  void aClientThatAnswersTheServersPingsStaysConnectedAcrossSeveralPeriods() throws IOException {
    // The timeout is shorter than the time: a server that ignored the answers would close the
    // connection before its next PING. The default permitKeepAliveTime (5 minutes) also shows that
    // the answers are not taken for pings of the client's: more than two would be too_many_pings.
    Server server = startWithKeepAlive(300, 250);
    try (RawHttp2Connection raw = RawHttp2Connection.open(server.getPort())) {
      for (int i = 0; i < 4; i++) {
        Frame frame = raw.readFrame();
        while (frame != null && frame.type() != PING && frame.type() != GOAWAY) {
          frame = raw.readFrame();
        }
        assertThat(frame).as("keepalive PING %d", i).isNotNull();
        assertThat(frame.type()).as("frame %s", frame).isEqualTo(PING);
        raw.writeFrame(PING, FLAG_ACK, 0, frame.payload());
      }

      raw.writePing(42);
      assertThat(awaitPingAckOrGoAway(raw, 42)).as("answer to the client's own PING").isNull();
    }
  }

  private static RecordingClientCallListener<String> startHang(ManagedChannel channel) {
    return RecordingClientCallListener.startUnary(
        channel, HostileProbe.HANG, CallOptions.DEFAULT, "hang");
  }

  /** A server pinging after {@code timeMillis} of silence, waiting {@code timeoutMillis}. */
  private Server startWithKeepAlive(long timeMillis, long timeoutMillis) throws IOException {
    return start(
        KeepAliveTimes.withoutMinimum(loopbackServer())
            .keepAliveTime(timeMillis, TimeUnit.MILLISECONDS)
            .keepAliveTimeout(timeoutMillis, TimeUnit.MILLISECONDS));
  }

  /**
   * Reads until the ACK of ping {@code payload} (returning null) or a GOAWAY (returning it); the
   * connection closing without either is a failure.
   */
  private static Frame awaitPingAckOrGoAway(RawHttp2Connection raw, long payload)
      throws IOException {
    byte[] expected = ByteBuffer.allocate(8).putLong(payload).array();
    for (Frame frame = raw.readFrame(); frame != null; frame = raw.readFrame()) {
      if (frame.type() == GOAWAY) {
        return frame;
      }
      if (frame.type() == PING
          && (frame.flags() & FLAG_ACK) != 0
          && Arrays.equals(frame.payload(), expected)) {
        return null;
      }
    }
    throw new AssertionError("connection closed without answering ping " + payload);
  }

  private static String debugData(Frame goAway) {
    byte[] payload = goAway.payload();
    return new String(payload, 8, payload.length - 8, UTF_8);
  }
}
