package dev.tern.http3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ForwardingServerCall;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.TlsChannelCredentials;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.StreamObserver;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.TestPems;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A channel with default options moves from HTTP/2 to the HTTP/3 a server advertises ({@code
 * alt-svc}), racing QUIC against TCP, and stays on HTTP/2 without a failed call where UDP goes
 * nowhere. Which protocol carried a call, the server tells by the {@code alt-used} field calls over
 * an advertised alternative carry (RFC 7838 section 5).
 */
class Http3UpgradeTest {
  private static final Metadata.Key<String> ALT_USED =
      Metadata.Key.of("alt-used", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> ALT_SVC =
      Metadata.Key.of("alt-svc", Metadata.ASCII_STRING_MARSHALLER);

  /** Long enough that a lost fallback (a QUIC handshake left to its 20-second timeout) fails. */
  private static CallOptions tenSeconds() {
    return CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir static Path dir;

  private static TestPems pems;

  /** Each call's {@code alt-used}, or "h2" for none, in the order the server saw them. */
  private final List<String> seen = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void certificates() throws Exception {
    pems = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    Files.writeString(dir.resolve("cert.pem"), pems.certificatePem);
    Files.writeString(dir.resolve("key.pem"), pems.keyPem);
  }

  private NettyServerBuilder server() throws Exception {
    return NettyServerBuilder.forPort(0)
        .useTransportSecurity(dir.resolve("cert.pem").toFile(), dir.resolve("key.pem").toFile())
        .addService(EchoService.definition())
        .intercept(
            new ServerInterceptor() {
              @Override
              public <Q, R> ServerCall.Listener<Q> interceptCall(
                  ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
                seen.add(Objects.requireNonNullElse(headers.get(ALT_USED), "h2"));
                return next.startCall(call, headers);
              }
            });
  }

  /**
   * A server without HTTP/3 whose responses advertise {@code values} anyway, one after the other.
   */
  private Server advertising(List<String> values) throws Exception {
    AtomicInteger turn = new AtomicInteger();
    return cleanup.register(
        server()
            .intercept(
                new ServerInterceptor() {
                  @Override
                  public <Q, R> ServerCall.Listener<Q> interceptCall(
                      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
                    return next.startCall(
                        new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                          @Override
                          public void sendHeaders(Metadata responseHeaders) {
                            responseHeaders.put(
                                ALT_SVC, values.get(turn.getAndIncrement() % values.size()));
                            super.sendHeaders(responseHeaders);
                          }
                        },
                        headers);
                  }
                })
            .build()
            .start());
  }

  private NettyChannelBuilder channelTo(Server server) throws Exception {
    return NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
        .tlsCredentials(
            TlsChannelCredentials.newBuilder()
                .trustManager(
                    new ByteArrayInputStream(
                        pems.certificatePem.getBytes(StandardCharsets.US_ASCII)))
                .build());
  }

  private static String unary(ManagedChannel channel, String request) {
    return ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, tenSeconds(), request);
  }

  @Test
  void aDefaultChannelMovesToHttp3AfterTheFirstHttp2Response() throws Exception {
    Server server = cleanup.register(server().enableHttp3().build().start());
    // QUIC alone until it fails: the race's outcome cannot depend on how the machine schedules.
    ManagedChannel channel =
        cleanup.register(channelTo(server).http3RaceHeadStart(1, TimeUnit.MINUTES).build());

    assertThat(unary(channel, "one")).isEqualTo("one");
    assertThat(unary(channel, "two")).isEqualTo("two");
    assertThat(unary(channel, "three")).isEqualTo("three");

    String http3 = "127.0.0.1:" + server.getPort();
    assertThat(seen).containsExactly("h2", http3, http3);
  }

  @Test
  void aCallUnderWayOnHttp2FinishesThereWhileNewCallsGoOverHttp3() throws Exception {
    Server server = cleanup.register(server().enableHttp3().build().start());
    ManagedChannel channel =
        cleanup.register(channelTo(server).http3RaceHeadStart(1, TimeUnit.MINUTES).build());
    BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    StreamObserver<String> requests =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(EchoService.BIDI_STREAMING, tenSeconds()),
            new StreamObserver<String>() {
              @Override
              public void onNext(String value) {
                events.add(value);
              }

              @Override
              public void onError(Throwable t) {
                events.add(t);
              }

              @Override
              public void onCompleted() {
                events.add("done");
              }
            });
    requests.onNext("a");
    assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("a"); // its headers advertised h3

    assertThat(unary(channel, "new")).isEqualTo("new");
    requests.onNext("b");
    requests.onCompleted();

    assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("b");
    assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("done");
    assertThat(seen).containsExactly("h2", "127.0.0.1:" + server.getPort());
  }

  @Test
  void theUpgradeCanBeTurnedOff() throws Exception {
    Server server = cleanup.register(server().enableHttp3().build().start());
    ManagedChannel channel = cleanup.register(channelTo(server).http3Upgrade(false).build());

    for (int i = 0; i < 3; i++) {
      assertThat(unary(channel, "x")).isEqualTo("x");
    }
    assertThat(seen).containsExactly("h2", "h2", "h2");
  }

  /**
   * UDP to the advertised port goes nowhere: a socket that never answers, or (closed) one that
   * draws ICMP port-unreachable. Every call succeeds over HTTP/2 within its deadline, far shorter
   * than the QUIC handshake's own timeout; QUIC is tried by one connection only, not by the next.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void withUdpGoingNowhereEveryCallSucceedsOverHttp2(boolean silent) throws Exception {
    DatagramChannel udp = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    try {
      int udpPort = ((InetSocketAddress) udp.getLocalAddress()).getPort();
      if (!silent) {
        udp.close();
      }
      Server server = advertising(List.of("h3=\":" + udpPort + "\""));
      ManagedChannel channel = cleanup.register(channelTo(server).build());

      for (int i = 0; i < 4; i++) {
        assertThat(unary(channel, "call " + i)).isEqualTo("call " + i);
      }
      channel.enterIdle(); // the next call makes a new connection
      assertThat(unary(channel, "after")).isEqualTo("after");

      assertThat(seen).containsOnly("h2").hasSize(5);
      if (silent) {
        assertThat(quicSources(udp)).as("connections that tried QUIC").hasSize(1);
      }
    } finally {
      udp.close();
    }
  }

  /** The source addresses of the datagrams {@code udp} received (loopback delivers at once). */
  private static Set<SocketAddress> quicSources(DatagramChannel udp) throws Exception {
    udp.configureBlocking(false);
    Set<SocketAddress> sources = new HashSet<>();
    ByteBuffer buffer = ByteBuffer.allocate(65536);
    for (SocketAddress from; (from = udp.receive(buffer)) != null; buffer.clear()) {
      sources.add(from);
    }
    return sources;
  }

  @Test
  void whatCannotBeUsedIsIgnoredAndNeverFailsACall() throws Exception {
    List<String> values =
        List.of(
            "h3=\":443",
            "h3=:443",
            "h3=\"evil.example:443\"",
            "clear",
            "h3=\":0\"",
            "h3=\":443\"; ma=never",
            "h3-29=\":443\"");
    Server server = advertising(values);
    ManagedChannel channel = cleanup.register(channelTo(server).build());

    for (int i = 0; i < values.size(); i++) {
      assertThat(unary(channel, "x")).isEqualTo("x");
    }
    assertThat(seen).hasSize(values.size()).containsOnly("h2");
  }
}
