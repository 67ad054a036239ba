package dev.tern.interop.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.Status;
import dev.tern.interop.testing.LoadBalancerStatsResponse;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.TestPems;
import dev.tern.testtools.ToolProcess;
import dev.tern.xds.Bootstrap;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigInteger;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateEncodingException;
import java.security.interfaces.ECPublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * mTLS from the control plane (A29) across implementations: every side's TLS comes only from
 * resources the test control plane pushes, on {@code file_watcher} certificate providers of each
 * program's bootstrap over PEM files the test writes. The client's Cluster has an
 * UpstreamTlsContext (its identity, the server's roots, a SAN the server's certificate must have);
 * the server's Listener has one filter chain, whose DownstreamTlsContext requires a client
 * certificate, and an RBAC filter that lets only the client's SAN call. So a call succeeds only if
 * the client did TLS, checked the server's SAN, and presented its certificate, which the server
 * verified and saw.
 *
 * <p>grpc-java 1.79's {@code XdsTestClient} and each {@link GrpcGo} xDS client ({@code
 * --secure_mode=true}) call Tern's {@code xds-test-server --secure_mode=true} bound to 127.0.0.2;
 * Tern's {@code xds-test-client --secure_mode=true} calls each {@link GrpcGo} xDS server and
 * grpc-java 1.79's {@code XdsTestServer}, all with {@code --secure_mode=true}. A SAN that the
 * server's certificate does not have makes every call of each client fail. The grpc-go peers are
 * grpc-go's own v1.64.1 interop programs and ours on v1.85.0 (tern-interop/src/test/go/xdspeer,
 * taking the same flags); with 1.85 both ways again where each side's roots are a SPIFFE bundle map
 * (A87) instead of the peer's certificate, and a server whose root is in no bundle refused both
 * ways.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class XdsMutualTlsInteropTest {
  private static final String NODE = "xds-mtls-interop";
  private static final String TEMPLATE = "grpc/server?xds.resource.listening_address=%s";
  private static final String SERVER_SAN = "spiffe://tern.test/server";
  private static final String CLIENT_SAN = "spiffe://tern.test/client";
  private static final String OTHER_SAN = "spiffe://tern.test/elsewhere";

  /** The bootstrap's file_watcher instances whose roots are the peer's certificate. */
  private static final String MESH = "mesh";

  /** The bootstrap's file_watcher instances whose roots are a SPIFFE bundle map (A87). */
  private static final String SPIFFE = "spiffe";

  /**
   * The bootstrap's file_watcher instances whose roots are the SPIFFE bundle map, the server's
   * identity a stranger's: a certificate with the server's SPIFFE ID whose root is in no bundle.
   */
  private static final String STRANGER = "spiffe_stranger";

  private static final Duration STOP = Duration.ofSeconds(10);

  /** How long a program may take to start and take its configuration (a JVM on a busy machine). */
  private static final Duration WARM_UP = Duration.ofSeconds(60);

  /** The grpc-go xDS peers, both taking the flags of grpc-go 1.64.1's interop programs. */
  enum GrpcGo {
    /** grpc-go's own interop programs (tools/install-xds-interop-tools.sh pins them). */
    V1_64_1("grpc-go-xds-interop-client", "grpc-go-xds-interop-server", "0.0.0.0", List.of(), null),
    /** Ours on grpc-go 1.85 (tern-interop/src/test/go/xdspeer), with SPIFFE bundle maps on. */
    V1_85_0(
        "grpc-go185-xds-client",
        "grpc-go185-xds-server",
        "127.0.0.1",
        List.of("GRPC_EXPERIMENTAL_XDS_MTLS_SPIFFE=true"),
        "now serving 127.0.0.1:");

    final String client;
    final String server;

    /** The address its server binds, which names its Listener (v1.64.1's binds every address). */
    final String listening;

    /** Environment variables ({@code NAME=value}) both programs get. */
    final List<String> environment;

    /** What its server prints once its Listener has come (null: nothing to wait for). */
    final String serving;

    GrpcGo(
        String client, String server, String listening, List<String> environment, String serving) {
      this.client = client;
      this.server = server;
      this.listening = listening;
      this.environment = environment;
      this.serving = serving;
    }
  }

  @TempDir Path dir;
  private final List<AutoCloseable> closeLast = new ArrayList<>();
  private TestControlPlane controlPlane;
  private String bootstrap;
  private Path bootstrapFile;

  @BeforeEach
  void setUp() throws Exception {
    controlPlane = TestControlPlane.start();
    closeLast.add(controlPlane);
    TestPems server = TestPems.generate("server", "dns:server.tern.test,uri:" + SERVER_SAN);
    TestPems client = TestPems.generate("client", "uri:" + CLIENT_SAN);
    Files.writeString(dir.resolve("server.pem"), server.certificatePem);
    Files.writeString(dir.resolve("server.key"), server.keyPem);
    Files.writeString(dir.resolve("client.pem"), client.certificatePem);
    Files.writeString(dir.resolve("client.key"), client.keyPem);
    TestPems stranger = TestPems.generate("stranger", "dns:server.tern.test,uri:" + SERVER_SAN);
    Files.writeString(dir.resolve("stranger.pem"), stranger.certificatePem);
    Files.writeString(dir.resolve("stranger.key"), stranger.keyPem);
    // A87: tern.test's bundle holds both (self-signed) certificates as roots.
    Files.writeString(
        dir.resolve("bundles.json"),
        "{\"trust_domains\": {\"tern.test\": {\"keys\": ["
            + svidKey(server)
            + ", "
            + svidKey(client)
            + "]}}}");
    String bundles = "\"spiffe_trust_bundle_map_file\": \"" + dir.resolve("bundles.json") + "\"";
    bootstrap =
        controlPlane
            .bootstrap(NODE)
            .replaceFirst(
                "\\{",
                "{\"server_listener_resource_name_template\": \""
                    + TEMPLATE
                    + "\", \"certificate_providers\": {"
                    + fileWatcher("server_" + MESH, "server", caFile("client"))
                    + ", "
                    + fileWatcher("client_" + MESH, "client", caFile("server"))
                    + ", "
                    + fileWatcher("server_" + SPIFFE, "server", bundles)
                    + ", "
                    + fileWatcher("client_" + SPIFFE, "client", bundles)
                    + ", "
                    + fileWatcher("server_" + STRANGER, "stranger", bundles)
                    + ", "
                    + fileWatcher("client_" + STRANGER, "client", bundles)
                    + "}, ");
    bootstrapFile = Files.writeString(dir.resolve("bootstrap.json"), bootstrap);
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeLast.size() - 1; i >= 0; i--) {
      closeLast.get(i).close();
    }
  }

  /**
   * A file_watcher instance: {@code identity}'s key and certificate, {@code roots} (the JSON field
   * naming the roots' file).
   */
  private String fileWatcher(String name, String identity, String roots) {
    return "\""
        + name
        + "\": {\"plugin_name\": \"file_watcher\", \"config\": {\"certificate_file\": \""
        + dir.resolve(identity + ".pem")
        + "\", \"private_key_file\": \""
        + dir.resolve(identity + ".key")
        + "\", "
        + roots
        + "}}";
  }

  /** The roots field of a file_watcher whose roots are {@code peer}'s certificate. */
  private String caFile(String peer) {
    return "\"ca_certificate_file\": \"" + dir.resolve(peer + ".pem") + "\"";
  }

  /**
   * A bundle map's x509-svid key (a JWK, RFC 7517: grpc-go wants the public key as well as the
   * {@code x5c} it must match) whose root is {@code pems}'s self-signed EC certificate.
   */
  private static String svidKey(TestPems pems) throws CertificateEncodingException {
    ECPublicKey key = (ECPublicKey) pems.certificate.getPublicKey();
    int bits = key.getParams().getCurve().getField().getFieldSize();
    return "{\"use\": \"x509-svid\", \"kty\": \"EC\", \"crv\": \"P-"
        + bits
        + "\", \"x\": \""
        + coordinate(key.getW().getAffineX(), (bits + 7) / 8)
        + "\", \"y\": \""
        + coordinate(key.getW().getAffineY(), (bits + 7) / 8)
        + "\", \"x5c\": [\""
        + Base64.getEncoder().encodeToString(pems.certificate.getEncoded())
        + "\"]}";
  }

  /** An EC coordinate as a JWK has it: unsigned, big-endian, {@code size} bytes, base64url. */
  private static String coordinate(BigInteger value, int size) {
    byte[] bytes = value.toByteArray(); // may have a sign byte in front, or be shorter
    byte[] fixed = new byte[size];
    int length = Math.min(bytes.length, size);
    System.arraycopy(bytes, bytes.length - length, fixed, size - length, length);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(fixed);
  }

  // ---- foreign clients -> Tern's server

  @Test
  void grpcJavasXdsClientCallsTernsServerOverMutualTls() throws Exception {
    ForeignClient client =
        foreignClientToTern(
            "grpc-java-xds-test-client",
            ForeignXdsClientsTest.grpcJavaXdsTestClientCommand(),
            true,
            MESH);

    assertEveryCallServedBy(client.process()::output, client.stats(), "tern-secure");
  }

  @Test
  void grpcJavasXdsClientRefusesTernsServerWhoseSanDoesNotMatch() throws Exception {
    ForeignClient client =
        foreignClientToTern(
            "grpc-java-xds-test-client",
            ForeignXdsClientsTest.grpcJavaXdsTestClientCommand(),
            false,
            MESH);

    // grpc-java's XdsX509TrustManager, in the failed calls it logs with --print_response.
    assertEveryCallRefused(client.process()::output, client.stats(), "SAN check failed");
  }

  @ParameterizedTest
  @EnumSource(GrpcGo.class)
  void grpcGosXdsClientCallsTernsServerOverMutualTls(GrpcGo go) throws Exception {
    ForeignClient client = foreignClientToTern(go.client, grpcGoClient(go), true, MESH);

    assertEveryCallServedBy(client.process()::output, client.stats(), "tern-secure");
  }

  @ParameterizedTest
  @EnumSource(GrpcGo.class)
  void grpcGosXdsClientRefusesTernsServerWhoseSanDoesNotMatch(GrpcGo go) throws Exception {
    ForeignClient client = foreignClientToTern(go.client, grpcGoClient(go), false, MESH);

    assertEveryCallRefused(
        client.process()::output, client.stats(), "do not match any of the accepted SANs");
  }

  /** Roots from no file but the bundle map: a call succeeds only if grpc-go checked by bundle. */
  @Test
  void grpcGo185sXdsClientCallsTernsServerOverSpiffeBundles() throws Exception {
    GrpcGo go = GrpcGo.V1_85_0;
    ForeignClient client = foreignClientToTern(go.client, grpcGoClient(go), true, SPIFFE);

    assertEveryCallServedBy(client.process()::output, client.stats(), "tern-secure");
  }

  /**
   * A87 refusing: Tern's server presents a certificate with the right SPIFFE ID whose root is not
   * in the bundle; grpc-go 1.85's client, checking by bundle, refuses every call.
   */
  @Test
  void grpcGo185sXdsClientRefusesTernsServerWhoseRootIsNotInTheBundle() throws Exception {
    GrpcGo go = GrpcGo.V1_85_0;
    ForeignClient client = foreignClientToTern(go.client, grpcGoClient(go), true, STRANGER);

    assertEveryCallRefused(
        client.process()::output, client.stats(), "certificate signed by unknown authority");
  }

  /**
   * Starts Tern's xds-test-server as an xDS-enabled server with XdsServerCredentials, serves its
   * Listener and {@code xds:///svc} (its cluster accepting the server's SAN, or only another; both
   * sides on the {@code tls} instances) and starts {@code command}, an xDS interop client, in
   * secure mode on {@code xds:///svc}.
   */
  private ForeignClient foreignClientToTern(
      String name, List<String> command, boolean sanMatches, String tls) throws Exception {
    XdsTestServer.Running server =
        XdsTestServer.start(
            new XdsTestServer.Config(
                "127.0.0.2",
                0,
                0,
                "tern-secure",
                "tern-secure",
                true,
                Bootstrap.parse(bootstrap, "the server's bootstrap")));
    closeLast.add(server);
    serveSecurely("127.0.0.2", "127.0.0.2", server.port(), sanMatches, tls);
    int statsPort = freePort();
    List<String> line = new ArrayList<>(List.of("env", "GRPC_XDS_BOOTSTRAP=" + bootstrapFile));
    line.addAll(command);
    line.addAll(
        List.of(
            "--server=xds:///svc",
            "--stats_port=" + statsPort,
            "--qps=60",
            "--rpc=UnaryCall",
            "--secure_mode=true",
            "--print_response=true"));
    ToolProcess client = ToolProcess.start(name, line);
    closeLast.add(() -> client.stop(STOP));
    return new ForeignClient(client, statsChannel(statsPort));
  }

  /** A running foreign client and a channel to its stats service. */
  private record ForeignClient(ToolProcess process, ManagedChannel stats) {}

  // ---- Tern's client -> foreign servers

  @ParameterizedTest
  @EnumSource(GrpcGo.class)
  void ternsXdsClientCallsGrpcGosServerOverMutualTls(GrpcGo go) throws Exception {
    startGrpcGoServer(go, true, MESH);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    assertEveryCallServedBy(printed::toString, ternClient(printed), "go-secure");
  }

  /** Roots from no file but the bundle map: a call succeeds only if grpc-go checked by bundle. */
  @Test
  void ternsXdsClientCallsGrpcGo185sServerOverSpiffeBundles() throws Exception {
    GrpcGo go = GrpcGo.V1_85_0;
    startGrpcGoServer(go, true, SPIFFE);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    assertEveryCallServedBy(printed::toString, ternClient(printed), "go-secure");
  }

  /**
   * A87 refusing: grpc-go 1.85's server presents a certificate with the right SPIFFE ID whose root
   * is not in the bundle; Tern's client refuses every call naming the bundle check.
   */
  @Test
  void ternsXdsClientRefusesGrpcGo185sServerWhoseRootIsNotInTheBundle() throws Exception {
    startGrpcGoServer(GrpcGo.V1_85_0, true, STRANGER);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    ManagedChannel stats = ternClient(printed);

    assertEveryCallRefused(
        printed::toString,
        stats,
        "SPIFFE bundle check failed (A87): the peer's chain does not lead to a root of the trust"
            + " domain \"tern.test\" of its SPIFFE ID "
            + SERVER_SAN);
  }

  @ParameterizedTest
  @EnumSource(GrpcGo.class)
  void ternsXdsClientRefusesGrpcGosServerWhoseSanDoesNotMatch_unavailable(GrpcGo go)
      throws Exception {
    startGrpcGoServer(go, false, MESH);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    ManagedChannel stats = ternClient(printed);

    assertEveryCallRefused(printed::toString, stats, "xDS SAN check failed");
    // Calls before grpc-go's server listens (it waits for its Listener) fail to connect; from the
    // first handshake on, every call fails on the SAN check.
    List<String> lines = printed.toString().lines().toList();
    int firstHandshake = 0;
    while (firstHandshake < lines.size()
        && lines.get(firstHandshake).startsWith("UnaryCall: UNAVAILABLE: Failed to connect to ")) {
      firstHandshake++;
    }
    assertThat(lines.subList(firstHandshake, lines.size()))
        .isNotEmpty()
        .allMatch(
            line ->
                line.startsWith("UnaryCall: UNAVAILABLE: TLS handshake failed: ")
                    && line.contains(
                        "xDS SAN check failed: no subject alternative name of the server's"
                            + " certificate [server.tern.test, "
                            + SERVER_SAN
                            + "] matches the cluster's match_subject_alt_names [exact \""
                            + OTHER_SAN
                            + "\"]"));
    assertThat(GrpcGoXdsServerTest.unaryCallResults(stats))
        .containsOnlyKeys(Status.Code.UNAVAILABLE.value());
  }

  @Test
  void ternsXdsClientCallsGrpcJavasServerOverMutualTls() throws Exception {
    int port = freePort();
    int maintenance = freePort();
    ToolProcess server =
        ToolProcess.start(
            "grpc-java-xds-test-server",
            List.of(
                "env",
                "GRPC_XDS_BOOTSTRAP=" + bootstrapFile,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                ForeignXdsClientsTest.grpcJavaClassPath(),
                "io.grpc.testing.integration.XdsTestServer",
                "--port=" + port,
                "--maintenance_port=" + maintenance,
                "--secure_mode=true",
                "--server_id=java-secure"));
    closeLast.add(() -> server.stop(STOP));
    serveSecurely("0.0.0.0", "127.0.0.1", port, true, MESH);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    ManagedChannel stats = ternClient(printed);

    // grpc-java's server answers with the machine's host name: one peer, every call.
    LoadBalancerStatsResponse block = warmThenCount(() -> printed + server.output(), stats);
    assertThat(block.getNumFailures()).isZero();
    assertThat(block.getRpcsByPeerMap()).hasSize(1);
    assertThat(block.getRpcsByPeerMap().values()).containsExactly(30);
  }

  /**
   * {@code go}'s xDS server in secure mode on {@link GrpcGo#listening}, answering as go-secure, its
   * resources served as {@link #serveSecurely} does; waits until it serves where it says so.
   */
  private void startGrpcGoServer(GrpcGo go, boolean sanMatches, String tls) throws Exception {
    Path program = ExternalTool.require(go.server);
    int port = freePort();
    List<String> line = new ArrayList<>(List.of("env", "GRPC_XDS_BOOTSTRAP=" + bootstrapFile));
    line.addAll(go.environment);
    line.addAll(
        List.of(
            program.toString(),
            "--port=" + port,
            "--maintenance_port=" + freePort(),
            "--secure_mode=true",
            "--host_name_override=go-secure"));
    ToolProcess server = ToolProcess.start(go.server, line);
    closeLast.add(() -> server.stop(STOP));
    serveSecurely(go.listening, "127.0.0.1", port, sanMatches, tls);
    if (go.serving != null) {
      assertThat(server.awaitOutput(output -> output.contains(go.serving), WARM_UP))
          .as("%s serving: %s", go.server, server.output())
          .isTrue();
    }
  }

  /** Tern's xds-test-client in secure mode on {@code xds:///svc}; returns its stats channel. */
  private ManagedChannel ternClient(ByteArrayOutputStream printed) throws IOException {
    System.setProperty("io.grpc.xds.bootstrapConfig", bootstrap);
    closeLast.add(() -> System.clearProperty("io.grpc.xds.bootstrapConfig"));
    XdsTestClient.Running client =
        XdsTestClient.start(
            new XdsTestClient.Settings(
                "xds:///svc",
                0,
                60,
                1,
                new ClientConfig(ClientConfig.parseTypes("UnaryCall"), Map.of(), 20),
                false,
                true,
                true),
            new PrintStream(printed, true, StandardCharsets.UTF_8));
    closeLast.add(client);
    return statsChannel(client.statsPort());
  }

  // ---- shared

  /**
   * Serves the server Listener of the xDS-enabled server on {@code listening} (0.0.0.0: every
   * address) {@code port} (mTLS, RBAC allowing the client's SAN) and {@code xds:///svc}: one
   * cluster whose endpoint is {@code host:port}, with TLS accepting {@link #SERVER_SAN} if {@code
   * sanMatches}, else only {@link #OTHER_SAN}; each side's TLS from its {@code tls} ({@link #MESH}
   * or {@link #SPIFFE}) instance.
   */
  private void serveSecurely(
      String listening, String host, int port, boolean sanMatches, String tls) throws Exception {
    controlPlane.serve(
        NODE,
        List.of(host + ":" + port),
        List.of(
            TestControlPlane.serverListener(
                TEMPLATE,
                listening + ":" + port,
                TestControlPlane.downstreamTls("server_" + tls),
                TestControlPlane.rbacAllowingOnly(CLIENT_SAN))),
        TestControlPlane.upstreamTls(
            "client_" + tls, List.of(sanMatches ? SERVER_SAN : OTHER_SAN)));
  }

  /** After a warm-up, 30 consecutive calls all succeed on {@code peer}. */
  private static void assertEveryCallServedBy(
      Supplier<String> output, ManagedChannel stats, String peer) {
    LoadBalancerStatsResponse block = warmThenCount(output, stats);

    assertThat(block.getNumFailures()).as(output.get()).isZero();
    assertThat(block.getRpcsByPeerMap()).isEqualTo(Map.of(peer, 30));
  }

  /**
   * Once the client has reported {@code refusal} (it had the configuration and refused the server),
   * 20 consecutive calls all fail.
   */
  private static void assertEveryCallRefused(
      Supplier<String> output, ManagedChannel stats, String refusal) {
    long deadline = System.nanoTime() + WARM_UP.toNanos();
    while (!output.get().contains(refusal) && System.nanoTime() < deadline) {
      ForeignXdsClientsTest.nextRpcs(stats, 10); // each bounded by its timeout
    }
    assertThat(output.get()).contains(refusal);

    LoadBalancerStatsResponse block = ForeignXdsClientsTest.nextRpcs(stats, 20);

    assertThat(block.getNumFailures()).isEqualTo(20);
    assertThat(block.getRpcsByPeerMap()).isEmpty();
  }

  /**
   * Until the client has its configuration and the server is serving, calls may fail: asks for
   * blocks until one has none failed (for at most {@link #WARM_UP}), then returns the 30 after.
   */
  private static LoadBalancerStatsResponse warmThenCount(
      Supplier<String> output, ManagedChannel stats) {
    long deadline = System.nanoTime() + WARM_UP.toNanos();
    LoadBalancerStatsResponse warm;
    do {
      warm = ForeignXdsClientsTest.nextRpcs(stats, 20); // each bounded by its timeout
    } while ((warm.getRpcsByPeerCount() == 0 || warm.getNumFailures() > 0)
        && System.nanoTime() < deadline);
    assertThat(warm.getNumFailures()).as("failures while warming up: %s", output.get()).isZero();
    return ForeignXdsClientsTest.nextRpcs(stats, 30);
  }

  private ManagedChannel statsChannel(int port) {
    ManagedChannel stats = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    closeLast.add(
        () -> {
          stats.shutdownNow();
          assertThat(stats.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        });
    return stats;
  }

  /** {@code go}'s xDS client, after the environment it gets (the command follows {@code env}). */
  private static List<String> grpcGoClient(GrpcGo go) {
    List<String> command = new ArrayList<>(go.environment);
    command.add(ExternalTool.require(go.client).toString());
    return command;
  }

  /** A port the OS says is free now, for the programs that take only a fixed port. */
  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
