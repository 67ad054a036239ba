package dev.tern.xds;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import dev.tern.CallOptions;
import dev.tern.ChannelCredentials;
import dev.tern.Grpc;
import dev.tern.InsecureServerCredentials;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.TlsChannelCredentials;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TestMarshallers;
import dev.tern.testtools.TestPems;
import dev.tern.tls.ReloadingX509KeyManager;
import dev.tern.xds.server.XdsServerBuilder;
import dev.tern.xds.server.XdsServerCredentials;
import dev.tern.xds.server.XdsServingStatusListener;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.core.v3.TransportSocket;
import io.envoyproxy.envoy.config.listener.v3.Filter;
import io.envoyproxy.envoy.config.listener.v3.FilterChain;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.NonForwardingAction;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CertificateProviderPluginInstance;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CertificateValidationContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CommonTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * mTLS from the control plane on an xDS-enabled server (A29), against the real control plane: the
 * server's key, certificate and client roots come from {@code file_watcher} certificate provider
 * instances that the pushed Listener's DownstreamTlsContext names; the files are PEMs the test
 * writes and replaces. A Tern client with its own TLS credentials calls it.
 */
class XdsServerSecurityControlPlaneTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String TEMPLATE = "grpc/server?xds.resource.listening_address=%s";
  private static final MethodDescriptor<byte[], byte[]> CALL =
      MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
          .setFullMethodName("svc.A/Call")
          .setType(MethodDescriptor.MethodType.UNARY)
          .build();

  @TempDir Path dir;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final BlockingQueue<String> statuses = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> peers = new LinkedBlockingQueue<>();
  private final String node = "xds-server-tls-" + System.nanoTime();
  private ControlPlaneProcess cp;
  private TestPems serverPems;
  private TestPems clientPems;
  private Path serverCert;
  private Path serverKey;
  private int port;
  private String host = "0.0.0.0"; // the Listener's: every address, or the one bound

  @BeforeEach
  void setUp() throws Exception {
    cp = ControlPlaneProcess.start();
    closeables.add(cp);
    serverPems = TestPems.generate("server-1", "dns:localhost,ip:127.0.0.1,ip:127.0.0.2");
    clientPems = TestPems.generate("client", "uri:spiffe://tern.test/client");
    serverCert = Files.writeString(dir.resolve("server.pem"), serverPems.certificatePem);
    serverKey = Files.writeString(dir.resolve("server.key"), serverPems.keyPem);
    Files.writeString(dir.resolve("client-roots.pem"), clientPems.certificatePem);
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private void startServer() throws Exception {
    startServer(
        XdsServerBuilder.forPort(
            0, XdsServerCredentials.create(InsecureServerCredentials.create())));
  }

  private void startServer(XdsServerBuilder builder) throws Exception {
    String providers =
        "\"certificate_providers\": {"
            + "\"server_identity\": {\"plugin_name\": \"file_watcher\", \"config\": {"
            + "\"certificate_file\": \""
            + serverCert
            + "\", \"private_key_file\": \""
            + serverKey
            + "\", \"refresh_interval\": \"0.2s\"}},"
            + "\"client_roots\": {\"plugin_name\": \"file_watcher\", \"config\": {"
            + "\"ca_certificate_file\": \""
            + dir.resolve("client-roots.pem")
            + "\"}}}, ";
    String json =
        cp.bootstrapJson(node)
            .replaceFirst(
                "\\{",
                "{\"server_listener_resource_name_template\": \"" + TEMPLATE + "\", " + providers);
    XdsClientPool pool =
        XdsClientPool.withOptions(
            XdsClient.Options.defaults()
                .withBackoff(Duration.ofMillis(50), Duration.ofMillis(500)));
    ServerCalls.UnaryMethod<byte[], byte[]> reply =
        (request, response) -> {
          response.onNext("ok".getBytes(UTF_8));
          response.onCompleted();
        };
    ServerInterceptor peerRecorder =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
            try {
              peers.add(
                  session == null
                      ? "plaintext"
                      : ((X509Certificate) session.getPeerCertificates()[0])
                          .getSubjectX500Principal()
                          .getName());
            } catch (SSLPeerUnverifiedException e) {
              peers.add("no client certificate");
            }
            return next.startCall(call, headers);
          }
        };
    Server server =
        builder
            .bootstrap(Bootstrap.parse(json, "test bootstrap"))
            .xdsClientPool(pool)
            .xdsServingStatusListener(
                new XdsServingStatusListener() {
                  @Override
                  public void onServing() {
                    statuses.add("SERVING");
                  }

                  @Override
                  public void onNotServing(Throwable cause) {
                    statuses.add("NOT_SERVING: " + cause.getMessage());
                  }
                })
            .addService(
                ServerServiceDefinition.builder("svc.A")
                    .addMethod(CALL, ServerCalls.asyncUnaryCall(reply))
                    .build())
            .intercept(peerRecorder)
            .build()
            .start();
    closeables.add(
        () -> {
          server.shutdownNow();
          server.awaitTermination(5, TimeUnit.SECONDS);
        });
    port = server.getPort();
  }

  /** A channel to the server presenting {@code identity}, trusting {@code serverRoots}. */
  private ManagedChannel channel(TestPems identity, TestPems... serverRoots) throws Exception {
    TlsChannelCredentials.Builder tls =
        TlsChannelCredentials.newBuilder()
            .trustManager(
                new ByteArrayInputStream(TestPems.roots(List.of(serverRoots)).getBytes(UTF_8)));
    if (identity != null) {
      tls.keyManager(
          new ByteArrayInputStream(identity.certificatePem.getBytes(UTF_8)),
          new ByteArrayInputStream(identity.keyPem.getBytes(UTF_8)));
    }
    ChannelCredentials creds = tls.build();
    ManagedChannel channel =
        Grpc.newChannelBuilderForAddress(host.equals("0.0.0.0") ? "localhost" : host, port, creds)
            .build();
    closeables.add(
        () -> {
          channel.shutdownNow();
          channel.awaitTermination(5, TimeUnit.SECONDS);
        });
    return channel;
  }

  private static Status call(ManagedChannel channel) {
    try {
      ClientCalls.blockingUnaryCall(
          channel,
          CALL,
          CallOptions.DEFAULT.withDeadlineAfter(WAIT.toMillis(), TimeUnit.MILLISECONDS),
          new byte[0]);
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }

  // ---- resources

  private static CertificateProviderPluginInstance instance(String name) {
    return CertificateProviderPluginInstance.newBuilder().setInstanceName(name).build();
  }

  private static TransportSocket tls(String identity, String roots, boolean requireClientCert) {
    CommonTlsContext.Builder common =
        CommonTlsContext.newBuilder().setTlsCertificateProviderInstance(instance(identity));
    if (roots != null) {
      common.setValidationContext(
          CertificateValidationContext.newBuilder()
              .setCaCertificateProviderInstance(instance(roots)));
    }
    DownstreamTlsContext context =
        DownstreamTlsContext.newBuilder()
            .setCommonTlsContext(common)
            .setRequireClientCertificate(com.google.protobuf.BoolValue.of(requireClientCert))
            .build();
    return TransportSocket.newBuilder()
        .setName("envoy.transport_sockets.tls")
        .setTypedConfig(Any.pack(context))
        .build();
  }

  private Listener listener(TransportSocket socket) {
    HttpConnectionManager hcm =
        HttpConnectionManager.newBuilder()
            .setRouteConfig(
                RouteConfiguration.newBuilder()
                    .setName("inline")
                    .addVirtualHosts(
                        VirtualHost.newBuilder()
                            .setName("all")
                            .addDomains("*")
                            .addRoutes(
                                Route.newBuilder()
                                    .setMatch(RouteMatch.newBuilder().setPrefix("/"))
                                    .setNonForwardingAction(
                                        NonForwardingAction.getDefaultInstance()))))
            .addHttpFilters(Resources.router())
            .build();
    FilterChain.Builder chain =
        FilterChain.newBuilder()
            .setName("secure")
            .addFilters(Filter.newBuilder().setName("hcm").setTypedConfig(Any.pack(hcm)));
    if (socket != null) {
      chain.setTransportSocket(socket);
    }
    return Listener.newBuilder()
        .setName(TEMPLATE.replace("%s", host + ":" + port))
        .setAddress(
            Address.newBuilder()
                .setSocketAddress(SocketAddress.newBuilder().setAddress(host).setPortValue(port)))
        .addFilterChains(chain)
        .build();
  }

  private void serve(TransportSocket socket) throws InterruptedException {
    cp.setSnapshot(node, "1", List.of(listener(socket)));
    assertThat(statuses.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("SERVING");
  }

  // ---- tests

  @Test
  void mutualTlsFromTheControlPlane_servesAndShowsTheClientCertificate() throws Exception {
    startServer();
    serve(tls("server_identity", "client_roots", true));

    assertThat(call(channel(clientPems, serverPems)).getCode()).isEqualTo(Status.Code.OK);
    assertThat(peers.poll()).isEqualTo("CN=client");
  }

  @Test
  void serverBoundToOneAddress_servesMutualTlsFromTheControlPlane() throws Exception {
    host = "127.0.0.2";
    startServer(
        XdsServerBuilder.forAddress(
            new InetSocketAddress(host, 0),
            XdsServerCredentials.create(InsecureServerCredentials.create())));
    serve(tls("server_identity", "client_roots", true)); // the Listener of 127.0.0.2:port

    assertThat(call(channel(clientPems, serverPems)).getCode()).isEqualTo(Status.Code.OK);
    assertThat(peers.poll()).isEqualTo("CN=client");
    assertThat(call(channel(null, serverPems)).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void clientWithoutATrustedCertificate_isRefused() throws Exception {
    startServer();
    serve(tls("server_identity", "client_roots", true));
    TestPems stranger = TestPems.generate("stranger", "dns:stranger");

    Status untrusted = call(channel(stranger, serverPems));
    Status none = call(channel(null, serverPems));

    assertThat(untrusted.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(none.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(peers).isEmpty();
  }

  @Test
  void chainWithoutTransportSocket_usesTheFallback() throws Exception {
    startServer();
    serve(null);
    ManagedChannel plaintext =
        Grpc.newChannelBuilderForAddress(
                "localhost", port, dev.tern.InsecureChannelCredentials.create())
            .build();
    closeables.add(
        () -> {
          plaintext.shutdownNow();
          plaintext.awaitTermination(5, TimeUnit.SECONDS);
        });

    assertThat(call(plaintext).getCode()).isEqualTo(Status.Code.OK);
    assertThat(peers.poll()).isEqualTo("plaintext");
  }

  @Test
  void rotatedCertificate_isUsedForNewConnections_withoutAFailedCall() throws Exception {
    startServer();
    serve(tls("server_identity", "client_roots", true));
    ManagedChannel before = channel(clientPems, serverPems);
    assertThat(call(before).getCode()).isEqualTo(Status.Code.OK);
    TestPems rotated = TestPems.generate("server-2", "dns:localhost,ip:127.0.0.1");

    TestPems.replace(serverKey, rotated.keyPem); // mid-rotation: the key does not match yet
    TestPems.replace(serverCert, rotated.certificatePem);

    long deadline = System.nanoTime() + WAIT.toNanos();
    Status onNew = Status.UNAVAILABLE;
    while (!onNew.isOk() && System.nanoTime() < deadline) {
      assertThat(call(before).getCode()).isEqualTo(Status.Code.OK);
      ManagedChannel after = channel(clientPems, rotated); // trusts only the new certificate
      onNew = call(after);
      after.shutdownNow();
    }
    assertThat(onNew.getCode()).isEqualTo(Status.Code.OK);
    assertThat(call(before).getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void mismatchedFiles_keepTheOldCertificate_andWarnNamingTheFile() throws Exception {
    startServer();
    serve(tls("server_identity", "client_roots", true));
    assertThat(call(channel(clientPems, serverPems)).getCode()).isEqualTo(Status.Code.OK);
    TestPems other = TestPems.generate("other", "dns:localhost");

    try (LogCapture log = new LogCapture(ReloadingX509KeyManager.class)) {
      TestPems.replace(serverKey, other.keyPem); // never matched by the certificate

      long deadline = System.nanoTime() + WAIT.toNanos();
      while (log.records().isEmpty() && System.nanoTime() < deadline) {
        assertThat(call(channel(clientPems, serverPems)).getCode()).isEqualTo(Status.Code.OK);
      }
      assertThat(log.records()).isNotEmpty();
      LogRecord warning = log.records().get(0);
      assertThat(warning.getLevel()).isEqualTo(Level.WARNING);
      assertThat(java.text.MessageFormat.format(warning.getMessage(), warning.getParameters()))
          .contains(serverKey.toString())
          .contains("keeping the previous material");
    }
    // New connections still get the old certificate.
    assertThat(call(channel(clientPems, serverPems)).getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void listenerNamingAMissingInstance_isNackedNamingIt() throws Exception {
    startServer();
    cp.setSnapshot(node, "1", List.of(listener(tls("nowhere", "client_roots", true))));

    ControlPlaneProcess.Request nack =
        cp.awaitRequest(r -> r.isNack() && r.errorDetail().contains("nowhere"), "instance NACK");
    assertThat(nack.errorDetail())
        .contains("tls_certificate_provider_instance.instance_name")
        .contains("\"nowhere\" is not a certificate_providers instance");
  }

  @Test
  void requireClientCertificateWithoutRoots_isNacked() throws Exception {
    startServer();
    cp.setSnapshot(node, "1", List.of(listener(tls("server_identity", null, true))));

    ControlPlaneProcess.Request nack =
        cp.awaitRequest(
            r -> r.isNack() && r.errorDetail().contains("require_client_certificate"),
            "require_client_certificate NACK");
    assertThat(nack.errorDetail()).contains("no ca_certificate_provider_instance");
  }
}
