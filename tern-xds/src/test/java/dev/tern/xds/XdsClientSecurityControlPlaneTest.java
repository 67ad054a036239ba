package dev.tern.xds;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.BoolValue;
import dev.tern.CallOptions;
import dev.tern.Grpc;
import dev.tern.InsecureChannelCredentials;
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
import dev.tern.channelz.ChannelStats;
import dev.tern.channelz.Channelz;
import dev.tern.channelz.Instrumented;
import dev.tern.channelz.Ref;
import dev.tern.channelz.TraceEvent;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.TestMarshallers;
import dev.tern.testtools.TestPems;
import dev.tern.xds.client.XdsChannelCredentials;
import dev.tern.xds.server.XdsServerBuilder;
import dev.tern.xds.server.XdsServerCredentials;
import dev.tern.xds.server.XdsServingStatusListener;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.core.v3.TransportSocket;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Filter;
import io.envoyproxy.envoy.config.listener.v3.FilterChain;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.rbac.v3.Permission;
import io.envoyproxy.envoy.config.rbac.v3.Policy;
import io.envoyproxy.envoy.config.rbac.v3.Principal;
import io.envoyproxy.envoy.config.route.v3.NonForwardingAction;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.extensions.filters.http.rbac.v3.RBAC;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CertificateProviderPluginInstance;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CertificateValidationContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CommonTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * mTLS from the control plane on the client (A29), end to end against the real control plane: a
 * Tern channel with {@link XdsChannelCredentials} calls a Tern xDS-enabled server with {@code
 * XdsServerCredentials}, and both sides' TLS comes only from pushed resources (the cluster's
 * UpstreamTlsContext, the Listener's DownstreamTlsContext requiring a client certificate), on
 * {@code file_watcher} instances over PEMs the test writes and replaces. One node holds both the
 * server's Listener and the client's resources.
 */
class XdsClientSecurityControlPlaneTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String BOOTSTRAP_PROPERTY = "io.grpc.xds.bootstrapConfig";
  private static final String TEMPLATE = "grpc/server?xds.resource.listening_address=%s";
  private static final String SERVER_SAN = "spiffe://tern.test/server";
  private static final String CLIENT_SAN = "spiffe://tern.test/client";
  private static final MethodDescriptor<byte[], byte[]> CALL =
      MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
          .setFullMethodName("svc.A/Call")
          .setType(MethodDescriptor.MethodType.UNARY)
          .build();

  @TempDir Path dir;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final BlockingQueue<String> statuses = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> peers = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> serverNames = new LinkedBlockingQueue<>(); // SNI, per call
  private final String node = "xds-client-tls-" + System.nanoTime();
  private ControlPlaneProcess cp;
  private TestPems clientPems;
  private TestPems rotatedClientPems;
  private Path clientCert;
  private Path clientKey;
  private int securePort;
  private int plainPort;

  @BeforeEach
  void setUp() throws Exception {
    cp = ControlPlaneProcess.start();
    closeables.add(cp);
    TestPems serverPems = TestPems.generate("server", "dns:server.tern.test,uri:" + SERVER_SAN);
    clientPems = TestPems.generate("client-1", "uri:" + CLIENT_SAN);
    rotatedClientPems = TestPems.generate("client-2", "uri:" + CLIENT_SAN);
    TestPems intruderPems = TestPems.generate("intruder", "uri:spiffe://tern.test/intruder");
    Files.writeString(dir.resolve("server.pem"), serverPems.certificatePem);
    Files.writeString(dir.resolve("server.key"), serverPems.keyPem);
    Files.writeString(dir.resolve("server-roots.pem"), serverPems.certificatePem);
    Files.writeString(
        dir.resolve("client-roots.pem"),
        TestPems.roots(List.of(clientPems, rotatedClientPems, intruderPems)));
    clientCert = Files.writeString(dir.resolve("client.pem"), clientPems.certificatePem);
    clientKey = Files.writeString(dir.resolve("client.key"), clientPems.keyPem);
    Files.writeString(dir.resolve("intruder.pem"), intruderPems.certificatePem);
    Files.writeString(dir.resolve("intruder.key"), intruderPems.keyPem);
    // A87: tern.test's bundle trusts the server and client-1 (not the intruder, also tern.test);
    // other.test's trusts nobody here.
    Files.writeString(
        dir.resolve("bundles.json"),
        "{\"trust_domains\": {\"tern.test\": {\"keys\": ["
            + svidKey(serverPems)
            + ", "
            + svidKey(clientPems)
            + "]}, \"other.test\": {\"keys\": ["
            + svidKey(intruderPems)
            + "]}}}");

    String json =
        cp.bootstrapJson(node)
            .replaceFirst(
                "\\{",
                "{\"server_listener_resource_name_template\": \""
                    + TEMPLATE
                    + "\", \"certificate_providers\": {"
                    + provider("server_identity", "server", null)
                    + ", "
                    + provider("client_roots", null, "client-roots.pem")
                    + ", "
                    + provider("client_identity", "client", null)
                    + ", "
                    + provider("intruder_identity", "intruder", null)
                    + ", "
                    + provider("server_roots", null, "server-roots.pem")
                    + ", "
                    + provider("spiffe_roots", null, null)
                    + "}, ");
    System.setProperty(BOOTSTRAP_PROPERTY, json);
    closeables.add(() -> System.clearProperty(BOOTSTRAP_PROPERTY));
    startSecureServer(Bootstrap.parse(json, "test bootstrap"));
    startPlainServer();
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  /**
   * A file_watcher instance over {@code <identity>.pem/.key}, a roots file, or (neither) the SPIFFE
   * bundle map, re-read often.
   */
  private String provider(String name, String identity, String roots) {
    String files =
        identity != null
            ? "\"certificate_file\": \""
                + dir.resolve(identity + ".pem")
                + "\", \"private_key_file\": \""
                + dir.resolve(identity + ".key")
                + "\""
            : roots != null
                ? "\"ca_certificate_file\": \"" + dir.resolve(roots) + "\""
                : "\"spiffe_trust_bundle_map_file\": \"" + dir.resolve("bundles.json") + "\"";
    return "\""
        + name
        + "\": {\"plugin_name\": \"file_watcher\", \"config\": {"
        + files
        + ", \"refresh_interval\": \"0.2s\"}}";
  }

  /** A bundle map's x509-svid key whose root is {@code pems}'s self-signed certificate. */
  private static String svidKey(TestPems pems) throws Exception {
    return "{\"use\": \"x509-svid\", \"kty\": \"EC\", \"x5c\": [\""
        + Base64.getEncoder().encodeToString(pems.certificate.getEncoded())
        + "\"]}";
  }

  /** Records the subject of the client's certificate, "plaintext", or "no client certificate". */
  private final ServerInterceptor peerRecorder =
      new ServerInterceptor() {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
          SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
          if (session instanceof ExtendedSSLSession extended) {
            List<String> names = new ArrayList<>();
            for (SNIServerName name : extended.getRequestedServerNames()) {
              names.add(name instanceof SNIHostName host ? host.getAsciiName() : name.toString());
            }
            serverNames.add(names.toString());
          }
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

  private ServerServiceDefinition service() {
    ServerCalls.UnaryMethod<byte[], byte[]> reply =
        (request, response) -> {
          response.onNext("ok".getBytes(UTF_8));
          response.onCompleted();
        };
    return ServerServiceDefinition.builder("svc.A")
        .addMethod(CALL, ServerCalls.asyncUnaryCall(reply))
        .build();
  }

  private void startSecureServer(Bootstrap bootstrap) throws Exception {
    Server server =
        XdsServerBuilder.forPort(0, XdsServerCredentials.create(InsecureServerCredentials.create()))
            .bootstrap(bootstrap)
            .xdsClientPool(XdsClientPool.withOptions(XdsClient.Options.defaults()))
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
            .addService(service())
            .intercept(peerRecorder)
            .build()
            .start();
    closeables.add(
        () -> {
          server.shutdownNow();
          server.awaitTermination(5, TimeUnit.SECONDS);
        });
    securePort = server.getPort();
  }

  private void startPlainServer() throws Exception {
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(dev.tern.ServerInterceptors.intercept(service(), peerRecorder))
            .build()
            .start();
    closeables.add(
        () -> {
          server.shutdownNow();
          server.awaitTermination(5, TimeUnit.SECONDS);
        });
    plainPort = server.getPort();
  }

  private ManagedChannel channel(String target) {
    ManagedChannel channel =
        Grpc.newChannelBuilder(
                target, XdsChannelCredentials.create(InsecureChannelCredentials.create()))
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

  /** A wait-for-ready call: it fails only if the channel has no connection within {@code time}. */
  private static Status callWaitingForReady(ManagedChannel channel, Duration time) {
    try {
      ClientCalls.blockingUnaryCall(
          channel,
          CALL,
          CallOptions.DEFAULT
              .withWaitForReady()
              .withDeadlineAfter(time.toMillis(), TimeUnit.MILLISECONDS),
          new byte[0]);
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }

  /**
   * Waits until the subchannels of the channel to {@code target} have failed {@code count}
   * connection attempts in all, as channelz's traces show them.
   */
  private static void awaitFailedAttempts(String target, int count) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    int failed = 0;
    while (failed < count && System.nanoTime() < deadline) {
      Thread.sleep(20); // a poll interval, not a synchronisation: the loop waits on the condition
      failed = 0;
      for (Instrumented<ChannelStats> root : Channelz.global().rootChannels(0, 1000).items()) {
        ChannelStats channel = root.channelzStats();
        if (!channel.target().equals(target)) {
          continue;
        }
        for (Ref ref : channel.subchannels()) {
          Instrumented<ChannelStats> subchannel = Channelz.global().subchannel(ref.id());
          if (subchannel == null) {
            continue;
          }
          for (TraceEvent event : subchannel.channelzStats().trace().events()) {
            if (event.description().contains("TRANSIENT_FAILURE")) {
              failed++;
            }
          }
        }
      }
    }
    assertThat(failed).as("failed connection attempts to %s", target).isGreaterThanOrEqualTo(count);
  }

  private static void assertOk(Status status) {
    assertThat(status.getCode()).as("%s", status).isEqualTo(Status.Code.OK);
  }

  // ---- resources

  private static CertificateProviderPluginInstance instance(String name) {
    return CertificateProviderPluginInstance.newBuilder().setInstanceName(name).build();
  }

  private static TransportSocket socket(com.google.protobuf.Message context) {
    return TransportSocket.newBuilder()
        .setName("envoy.transport_sockets.tls")
        .setTypedConfig(Any.pack(context))
        .build();
  }

  /** The server's Listener: mTLS required, and the RBAC filter when {@code rbac} is not null. */
  private Listener serverListener(RBAC rbac) {
    return serverListener(rbac, "client_roots");
  }

  /** The server's Listener, checking client certificates with the instance {@code roots}. */
  private Listener serverListener(RBAC rbac, String roots) {
    VirtualHost host =
        VirtualHost.newBuilder()
            .setName("all")
            .addDomains("*")
            .addRoutes(
                Route.newBuilder()
                    .setMatch(RouteMatch.newBuilder().setPrefix("/"))
                    .setNonForwardingAction(NonForwardingAction.getDefaultInstance()))
            .build();
    HttpConnectionManager.Builder hcm =
        HttpConnectionManager.newBuilder()
            .setRouteConfig(
                RouteConfiguration.newBuilder().setName("inline").addVirtualHosts(host));
    if (rbac != null) {
      hcm.addHttpFilters(HttpFilter.newBuilder().setName("rbac").setTypedConfig(Any.pack(rbac)));
    }
    hcm.addHttpFilters(Resources.router());
    DownstreamTlsContext tls =
        DownstreamTlsContext.newBuilder()
            .setCommonTlsContext(
                CommonTlsContext.newBuilder()
                    .setTlsCertificateProviderInstance(instance("server_identity"))
                    .setValidationContext(
                        CertificateValidationContext.newBuilder()
                            .setCaCertificateProviderInstance(instance(roots))))
            .setRequireClientCertificate(BoolValue.of(true))
            .build();
    return Listener.newBuilder()
        .setName(TEMPLATE.replace("%s", "0.0.0.0:" + securePort))
        .setAddress(
            Address.newBuilder()
                .setSocketAddress(
                    SocketAddress.newBuilder().setAddress("0.0.0.0").setPortValue(securePort)))
        .addFilterChains(
            FilterChain.newBuilder()
                .setName("mtls")
                .addFilters(
                    Filter.newBuilder().setName("hcm").setTypedConfig(Any.pack(hcm.build())))
                .setTransportSocket(socket(tls)))
        .build();
  }

  /**
   * A cluster whose endpoints need TLS from {@code identity} (null: no client certificate) and the
   * server's roots.
   */
  private static Cluster secureCluster(String name, String identity, StringMatcher... sans) {
    return secureCluster(name, identity, "server_roots", sans);
  }

  /** As above, with the server checked against the instance {@code roots}. */
  @SuppressWarnings("deprecation") // match_subject_alt_names, which A29 reads
  private static Cluster secureCluster(
      String name, String identity, String roots, StringMatcher... sans) {
    CertificateValidationContext.Builder validation =
        CertificateValidationContext.newBuilder().setCaCertificateProviderInstance(instance(roots));
    for (StringMatcher san : sans) {
      validation.addMatchSubjectAltNames(san);
    }
    CommonTlsContext.Builder common =
        CommonTlsContext.newBuilder().setValidationContext(validation);
    if (identity != null) {
      common.setTlsCertificateProviderInstance(instance(identity));
    }
    UpstreamTlsContext tls = UpstreamTlsContext.newBuilder().setCommonTlsContext(common).build();
    return Resources.edsCluster(name, name).setTransportSocket(socket(tls)).build();
  }

  /**
   * Pushes the server's Listener and, for the client, {@code xds:///<name>} of each cluster
   * (routing to it), the clusters, and their endpoints: a cluster named {@code plain*} at the
   * plaintext server, the others at the secure server.
   */
  private void push(String version, RBAC rbac, Cluster... clusters) {
    pushWith(version, serverListener(rbac), clusters);
  }

  private void pushWith(String version, Listener serverListener, Cluster... clusters) {
    List<com.google.protobuf.Message> resources = new ArrayList<>();
    resources.add(serverListener);
    for (Cluster cluster : clusters) {
      String name = cluster.getName();
      resources.add(Resources.listener(name, "route-" + name));
      resources.add(Resources.routes("route-" + name, name));
      resources.add(cluster);
      resources.add(Resources.endpoints(name, name.startsWith("plain") ? plainPort : securePort));
    }
    cp.setSnapshot(node, version, resources);
  }

  /**
   * Pushes the server's Listener and {@code cluster} as {@link #push} does, its one endpoint (the
   * secure server) carrying the EDS host name {@code hostname}.
   */
  private void pushWithEndpointHostname(String version, String hostname, Cluster cluster) {
    String name = cluster.getName();
    ClusterLoadAssignment endpoints = Resources.endpoints(name, securePort);
    ClusterLoadAssignment.Builder named = endpoints.toBuilder();
    named
        .getEndpointsBuilder(0)
        .getLbEndpointsBuilder(0)
        .getEndpointBuilder()
        .setHostname(hostname);
    cp.setSnapshot(
        node,
        version,
        List.of(
            serverListener(null),
            Resources.listener(name, "route-" + name),
            Resources.routes("route-" + name, name),
            cluster,
            named.build()));
  }

  /**
   * A cluster with mTLS whose server name is its endpoints' host names ({@code auto_host_sni}) and
   * whose server is checked against that name ({@code auto_sni_san_validation}), A101.
   */
  private static Cluster hostSniCluster(String name) {
    CommonTlsContext common =
        CommonTlsContext.newBuilder()
            .setTlsCertificateProviderInstance(instance("client_identity"))
            .setValidationContext(
                CertificateValidationContext.newBuilder()
                    .setCaCertificateProviderInstance(instance("server_roots")))
            .build();
    UpstreamTlsContext tls =
        UpstreamTlsContext.newBuilder()
            .setCommonTlsContext(common)
            .setSni("cluster-sni.tern.test")
            .setAutoHostSni(true)
            .setAutoSniSanValidation(true)
            .build();
    return Resources.edsCluster(name, name).setTransportSocket(socket(tls)).build();
  }

  private void awaitServing() throws InterruptedException {
    assertThat(statuses.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("SERVING");
  }

  private static StringMatcher exact(String san) {
    return StringMatcher.newBuilder().setExact(san).build();
  }

  // ---- tests

  @Test
  void mutualTlsOnBothSidesFromTheControlPlane_serverSeesTheClientCertificate() throws Exception {
    push(
        "1",
        null,
        secureCluster("secure", "client_identity", exact(SERVER_SAN)),
        secureCluster(
            "secure-prefix",
            "client_identity",
            StringMatcher.newBuilder()
                .setPrefix("SPIFFE://TERN.TEST/")
                .setIgnoreCase(true)
                .build()),
        Resources.edsCluster("plain", "plain").build());
    awaitServing();

    assertOk(call(channel("xds:///secure")));
    assertThat(peers.poll()).isEqualTo("CN=client-1");
    assertOk(call(channel("xds:///secure-prefix")));
    assertThat(peers.poll()).isEqualTo("CN=client-1");
    // A cluster without a transport_socket: the fallback, plaintext.
    assertOk(call(channel("xds:///plain")));
    assertThat(peers.poll()).isEqualTo("plaintext");
  }

  @Test
  void spiffeBundleMapOnBothSides_admitsPeersOfTheirTrustDomainsBundle_only() throws Exception {
    pushWith(
        "1",
        serverListener(null, "spiffe_roots"),
        secureCluster("secure", "client_identity", "spiffe_roots", exact(SERVER_SAN)),
        secureCluster("wrong-san", "client_identity", "spiffe_roots", exact(CLIENT_SAN)),
        secureCluster("intruder", "intruder_identity", "spiffe_roots", exact(SERVER_SAN)));
    awaitServing();

    assertOk(call(channel("xds:///secure")));
    assertThat(peers.poll()).isEqualTo("CN=client-1");
    // The server passes the bundle check; the cluster's SAN matcher still applies after it.
    Status wrongSan = call(channel("xds:///wrong-san"));
    assertThat(wrongSan.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(wrongSan.getDescription()).contains("xDS SAN check failed");
    // The intruder claims spiffe://tern.test/ but tern.test's bundle does not hold its root.
    Status intruder = call(channel("xds:///intruder"));
    assertThat(intruder.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(peers).isEmpty();
  }

  @Test
  void autoHostSni_sendsTheEndpointsHostName_andChecksTheServerAgainstIt() throws Exception {
    // The server's certificate names server.tern.test; the cluster's own sni does not match it.
    pushWithEndpointHostname("1", "server.tern.test", hostSniCluster("named"));
    awaitServing();

    assertOk(call(channel("xds:///named")));
    assertThat(serverNames.poll()).isEqualTo("[server.tern.test]");
    assertThat(peers.poll()).isEqualTo("CN=client-1");
  }

  @Test
  void autoHostSni_endpointNamedOtherThanTheCertificate_failsNamingTheNameSent() throws Exception {
    pushWithEndpointHostname("1", "elsewhere.tern.test", hostSniCluster("named"));
    awaitServing();

    Status status = call(channel("xds:///named"));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription())
        .contains("xDS SAN check failed")
        .contains("auto_sni_san_validation")
        .contains("elsewhere.tern.test");
    assertThat(peers).isEmpty();
  }

  @Test
  void serverSanMatchingNoMatcher_failsUnavailableNamingTheSanCheck() throws Exception {
    push(
        "1",
        null,
        secureCluster(
            "secure",
            "client_identity",
            exact("spiffe://tern.test/other"),
            StringMatcher.newBuilder().setSuffix("/SERVER").build())); // case-sensitive
    awaitServing();

    Status status = call(channel("xds:///secure"));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription())
        .contains("xDS SAN check failed")
        .contains("match_subject_alt_names")
        .contains(SERVER_SAN)
        .contains("spiffe://tern.test/other");
    assertThat(peers).isEmpty();
  }

  @Test
  void clusterNamingAMissingInstance_isNackedNamingIt() throws Exception {
    push("1", null, secureCluster("secure", "nowhere"));
    channel("xds:///secure").getState(true); // subscribes to the cluster

    ControlPlaneProcess.Request nack =
        cp.awaitRequest(r -> r.isNack() && r.errorDetail().contains("nowhere"), "instance NACK");
    assertThat(nack.errorDetail())
        .contains("tls_certificate_provider_instance.instance_name")
        .contains("\"nowhere\" is not a certificate_providers instance");
  }

  @Test
  void rotatedClientIdentity_isPresentedByTheNextNewConnection_withoutAFailedCall()
      throws Exception {
    push("1", null, secureCluster("secure", "client_identity", exact(SERVER_SAN)));
    awaitServing();
    ManagedChannel before = channel("xds:///secure");
    assertOk(call(before));
    assertThat(peers.poll()).isEqualTo("CN=client-1");

    TestPems.replace(clientKey, rotatedClientPems.keyPem); // mid-rotation: no match yet
    TestPems.replace(clientCert, rotatedClientPems.certificatePem);

    long deadline = System.nanoTime() + WAIT.toNanos();
    String seen = "CN=client-1";
    while (!seen.equals("CN=client-2") && System.nanoTime() < deadline) {
      assertOk(call(before));
      assertThat(peers.poll()).isEqualTo("CN=client-1"); // its connection keeps its certificate
      ManagedChannel after = channel("xds:///secure");
      assertOk(call(after));
      seen = peers.poll();
      after.shutdownNow();
    }
    assertThat(seen).isEqualTo("CN=client-2");
  }

  @Test
  void clusterCorrectedAfterASanMismatch_theFailingEndpointConnectsWithTheNewSettingsAtOnce()
      throws Exception {
    push("1", null, secureCluster("corrected", "client_identity", exact("spiffe://tern.test/x")));
    awaitServing();
    ManagedChannel channel = channel("xds:///corrected");
    Status before = call(channel);
    assertThat(before.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(before.getDescription()).contains("xDS SAN check failed");
    // Four failed attempts: the endpoint's next back-off is then 4.1 s (+-20%), which the
    // corrected cluster must not have to wait out.
    awaitFailedAttempts("xds:///corrected", 4);

    push("2", null, secureCluster("corrected", "client_identity", exact(SERVER_SAN)));

    // The same channel, its balancers and subchannels kept: the next connection attempt uses the
    // cluster's new settings, and it is made now.
    assertOk(callWaitingForReady(channel, Duration.ofSeconds(3)));
    assertThat(peers.poll()).isEqualTo("CN=client-1");
  }

  @Test
  void clusterCorrectedToPresentAClientCertificate_succeedsOnTheSameChannel() throws Exception {
    push("1", null, secureCluster("certless", null, exact(SERVER_SAN)));
    awaitServing();
    ManagedChannel channel = channel("xds:///certless");
    Status before = call(channel); // the server requires a client certificate
    assertThat(before.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(peers).isEmpty();

    push("2", null, secureCluster("certless", "client_identity", exact(SERVER_SAN)));

    assertOk(callWaitingForReady(channel, Duration.ofSeconds(3)));
    assertThat(peers.poll()).isEqualTo("CN=client-1");
  }

  @Test
  void rbacPrincipalOnTheClientsSan_allowsThatClient_andDeniesAnother() throws Exception {
    Policy clientOnly =
        Policy.newBuilder()
            .addPermissions(Permission.newBuilder().setAny(true))
            .addPrincipals(
                Principal.newBuilder()
                    .setAuthenticated(
                        Principal.Authenticated.newBuilder().setPrincipalName(exact(CLIENT_SAN))))
            .build();
    RBAC allowClient =
        RBAC.newBuilder()
            .setRules(
                io.envoyproxy
                    .envoy
                    .config
                    .rbac
                    .v3
                    .RBAC
                    .newBuilder()
                    .setAction(io.envoyproxy.envoy.config.rbac.v3.RBAC.Action.ALLOW)
                    .putAllPolicies(Map.of("client-only", clientOnly)))
            .build();
    push(
        "1",
        allowClient,
        secureCluster("secure", "client_identity", exact(SERVER_SAN)),
        secureCluster("intruder", "intruder_identity", exact(SERVER_SAN)));
    awaitServing();

    Status allowed = call(channel("xds:///secure"));
    Status denied = call(channel("xds:///intruder"));

    assertOk(allowed);
    assertThat(denied.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(denied.getDescription()).isEqualTo("RBAC: access denied");
    assertThat(peers).containsExactly("CN=client-1"); // RBAC stops the intruder's call earlier
  }
}
