package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ChannelCredentials;
import dev.tern.Grpc;
import dev.tern.InsecureChannelCredentials;
import dev.tern.InsecureServerCredentials;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.PerAddressChannelCredentials;
import dev.tern.PerConnectionServerCredentials;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerCredentials;
import dev.tern.ServerInterceptor;
import dev.tern.ServerInterceptors;
import dev.tern.ServerProvider;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.TlsChannelCredentials;
import dev.tern.TlsServerCredentials;
import dev.tern.TlsServerCredentials.ClientAuth;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import java.io.File;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Servers and channels built from credentials alone ({@code Grpc.newServerBuilderForPort}, {@code
 * Grpc.newChannelBuilderForAddress}): TLS with each kind of key, client authentication REQUIRE and
 * OPTIONAL, and the errors for credentials no transport can honour.
 */
class TlsCredentialsChannelServerTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  static TestCertificates server;
  static TestCertificates client;
  @TempDir static Path dir;
  static File serverChain;
  static File serverKey;
  static File clientChain;
  static File clientKey;

  private final BlockingQueue<SSLSession> sessions = new LinkedBlockingQueue<>();

  @BeforeAll
  static void generate() throws Exception {
    server = TestCertificates.generate("tern-server", "RSA");
    client = TestCertificates.generate("tern-client", "EC");
    serverChain =
        PemWriter.write(dir, "server.pem", PemWriter.certificates(server.certificate)).toFile();
    serverKey = PemWriter.write(dir, "server.key", PemWriter.pkcs1(server.key)).toFile();
    clientChain =
        PemWriter.write(dir, "client.pem", PemWriter.certificates(client.certificate)).toFile();
    clientKey = PemWriter.write(dir, "client.key", PemWriter.sec1(client.key)).toFile();
  }

  /** Records each call's TLS session, as the server sees it. */
  private final ServerInterceptor recordSession =
      new ServerInterceptor() {
        @Override
        public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
            ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
          SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
          if (session != null) {
            sessions.add(session);
          }
          return next.startCall(call, headers);
        }
      };

  private int start(ServerCredentials creds) throws Exception {
    Server started =
        cleanup.register(
            Grpc.newServerBuilderForPort(0, creds)
                .addService(ServerInterceptors.intercept(new EchoService(), recordSession))
                .build()
                .start());
    return started.getPort();
  }

  private String echo(int port, ChannelCredentials creds, String request) {
    ManagedChannel channel =
        cleanup.register(Grpc.newChannelBuilderForAddress("localhost", port, creds).build());
    return ClientCalls.blockingUnaryCall(
        channel,
        EchoService.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
        request);
  }

  private static TlsChannelCredentials.Builder trustingServer() throws Exception {
    return TlsChannelCredentials.newBuilder().trustManager(serverChain);
  }

  /**
   * {@code ServerProvider.select(address, credentials)}: the server listens on that address alone,
   * and per-connection credentials choose each connection's TLS there too.
   */
  @Test
  void serverForOneAddress_bindsItAlone_andHonoursPerConnectionTls() throws Exception {
    TlsServerCredentials tls = TlsServerCredentials.create(serverChain, serverKey);
    BlockingQueue<SocketAddress> locals = new LinkedBlockingQueue<>();
    PerConnectionServerCredentials perConnection =
        new PerConnectionServerCredentials(InsecureServerCredentials.create()) {
          @Override
          public Selection select(SocketAddress local, SocketAddress remote) {
            locals.add(local);
            return new Selection(tls, Attributes.EMPTY);
          }
        };
    Server started =
        cleanup.register(
            ServerProvider.select(new InetSocketAddress("127.0.0.2", 0), perConnection)
                .addService(ServerInterceptors.intercept(new EchoService(), recordSession))
                .build()
                .start());
    int port = started.getPort();
    ManagedChannel channel =
        cleanup.register(
            Grpc.newChannelBuilderForAddress("127.0.0.2", port, trustingServer().build())
                .overrideAuthority("localhost")
                .build());

    String answer =
        ClientCalls.blockingUnaryCall(
            channel,
            EchoService.UNARY,
            CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
            "hello");

    assertThat(answer).isEqualTo("hello");
    assertThat(sessions.poll(10, TimeUnit.SECONDS)).isNotNull(); // the call came over TLS
    assertThat(locals.poll()).isEqualTo(new InetSocketAddress("127.0.0.2", port));
    assertThat(List.<SocketAddress>copyOf(started.getListenSockets()))
        .containsExactly(new InetSocketAddress("127.0.0.2", port));
  }

  @Test
  void tlsFromPemFilesServesCalls() throws Exception {
    int port = start(TlsServerCredentials.create(serverChain, serverKey));
    assertThat(echo(port, trustingServer().build(), "hello")).isEqualTo("hello");
    SSLSession session = sessions.poll(10, TimeUnit.SECONDS);
    assertThat(session.getProtocol()).isIn("TLSv1.3", "TLSv1.2");
    assertThatThrownBy(session::getPeerCertificates).isInstanceOf(SSLPeerUnverifiedException.class);
  }

  @Test
  void clientThatDoesNotTrustTheServerFailsUnavailable() throws Exception {
    int port = start(TlsServerCredentials.create(serverChain, serverKey));
    try (LogCapture tail = new LogCapture(NettyTlsChannelServerTest.PIPELINE_TAIL, null)) {
      assertThatThrownBy(
              () ->
                  echo(
                      port,
                      TlsChannelCredentials.newBuilder().trustManager(clientChain).build(),
                      "x"))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      assertThat(tail.records()).isEmpty();
    }
  }

  @Test
  void requiredClientCertificateIsCheckedAndSeen() throws Exception {
    int port =
        start(
            TlsServerCredentials.newBuilder()
                .keyManager(serverChain, serverKey)
                .trustManager(clientChain)
                .clientAuth(ClientAuth.REQUIRE)
                .build());
    assertThat(echo(port, trustingServer().keyManager(clientChain, clientKey).build(), "mine"))
        .isEqualTo("mine");
    X509Certificate peer =
        (X509Certificate) sessions.poll(10, TimeUnit.SECONDS).getPeerCertificates()[0];
    assertThat(peer.getSubjectX500Principal().getName()).isEqualTo("CN=tern-client");

    try (LogCapture tail = new LogCapture(NettyTlsChannelServerTest.PIPELINE_TAIL, null)) {
      assertThatThrownBy(() -> echo(port, trustingServer().build(), "anonymous"))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(e.getStatus().getDescription())
                    .startsWith("TLS failed: client certificate required");
              });
      assertThat(tail.records()).isEmpty();
    }
    assertThat(sessions).isEmpty();
  }

  @Test
  void optionalClientCertificateLetsAnonymousClientsIn() throws Exception {
    int port =
        start(
            TlsServerCredentials.newBuilder()
                .keyManager(serverChain, serverKey)
                .trustManager(clientChain)
                .clientAuth(ClientAuth.OPTIONAL)
                .build());
    assertThat(echo(port, trustingServer().build(), "anonymous")).isEqualTo("anonymous");
    SSLSession anonymous = sessions.poll(10, TimeUnit.SECONDS);
    assertThatThrownBy(anonymous::getPeerCertificates)
        .isInstanceOf(SSLPeerUnverifiedException.class);

    assertThat(echo(port, trustingServer().keyManager(clientChain, clientKey).build(), "known"))
        .isEqualTo("known");
    X509Certificate peer =
        (X509Certificate) sessions.poll(10, TimeUnit.SECONDS).getPeerCertificates()[0];
    assertThat(peer.getSubjectX500Principal().getName()).isEqualTo("CN=tern-client");
  }

  @Test
  void insecureCredentialsServePlaintext() throws Exception {
    int port = start(InsecureServerCredentials.create());
    assertThat(echo(port, InsecureChannelCredentials.create(), "clear")).isEqualTo("clear");
    assertThat(sessions).isEmpty();
  }

  @Test
  void inProcessTakesInsecureCredentialsAndRefusesTls() throws Exception {
    String name = cleanup.uniqueName();
    cleanup.register(
        InProcessServerBuilder.forName(name).addService(new EchoService()).build().start());
    ManagedChannel channel =
        cleanup.register(
            Grpc.newChannelBuilder("inprocess:" + name, InsecureChannelCredentials.create())
                .build());
    assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "in"))
        .isEqualTo("in");

    assertThatThrownBy(
            () -> Grpc.newChannelBuilder("inprocess:" + name, TlsChannelCredentials.create()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            "No channel transport accepts TlsChannelCredentials[key: none, trust: JDK default CAs]"
                + " for target inprocess:")
        .hasMessageContaining("the in-process transport has no TLS");
  }

  /** A kind of credentials no transport here knows. */
  private static final class AltsLike extends ChannelCredentials {
    @Override
    public String toString() {
      return "AltsLikeCredentials";
    }
  }

  private static final class AltsLikeServer extends ServerCredentials {
    @Override
    public String toString() {
      return "AltsLikeServerCredentials";
    }
  }

  @Test
  void credentialsNoTransportUnderstandsAreNamed() {
    assertThatThrownBy(() -> Grpc.newChannelBuilderForAddress("localhost", 443, new AltsLike()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            "No channel transport accepts AltsLikeCredentials for address localhost:443")
        .hasMessageContaining("the Netty transport understands InsecureChannelCredentials and");
    assertThatThrownBy(() -> Grpc.newServerBuilderForPort(0, new AltsLikeServer()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("No server transport accepts AltsLikeServerCredentials for port 0")
        .hasMessageContaining("the Netty transport understands InsecureServerCredentials and");
    assertThatThrownBy(
            () -> Grpc.newServerBuilderForPort(70000, InsecureServerCredentials.create()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("port out of range: 70000");
  }

  /** Per-address credentials whose TLS trusts the server and sends {@code serverName}. */
  private static ChannelCredentials perAddress(String serverName) throws Exception {
    TlsChannelCredentials tls = trustingServer().build();
    return new PerAddressChannelCredentials(InsecureChannelCredentials.create()) {
      @Override
      public TlsChannelCredentials credentialsFor(Attributes addressAttributes) {
        return tls;
      }

      @Override
      public String serverNameFor(Attributes addressAttributes) {
        return serverName;
      }
    };
  }

  private List<String> requestedServerNames() throws Exception {
    SSLSession session = sessions.poll(20, TimeUnit.SECONDS);
    assertThat(session).isInstanceOf(ExtendedSSLSession.class);
    return ((ExtendedSSLSession) session)
        .getRequestedServerNames().stream()
            .map(name -> ((SNIHostName) name).getAsciiName())
            .toList();
  }

  /**
   * {@code PerAddressChannelCredentials.serverNameFor}: the server sees the name chosen, none, or
   * (by default) the authority's host; no host-name check is made against any of them.
   */
  @Test
  void perAddressCredentials_chooseTheServerNameSent() throws Exception {
    int port = start(TlsServerCredentials.create(serverChain, serverKey));

    assertThat(echo(port, perAddress("orders.mesh.test"), "a")).isEqualTo("a");
    assertThat(requestedServerNames()).containsExactly("orders.mesh.test");

    assertThat(echo(port, perAddress(PerAddressChannelCredentials.NO_SERVER_NAME), "b"))
        .isEqualTo("b");
    assertThat(requestedServerNames()).isEmpty();

    ManagedChannel channel =
        cleanup.register(
            Grpc.newChannelBuilderForAddress("localhost", port, perAddress(null))
                .overrideAuthority("authority.mesh.test")
                .build());
    assertThat(
            ClientCalls.blockingUnaryCall(
                channel,
                EchoService.UNARY,
                CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
                "c"))
        .isEqualTo("c");
    assertThat(requestedServerNames()).containsExactly("authority.mesh.test");
  }
}
