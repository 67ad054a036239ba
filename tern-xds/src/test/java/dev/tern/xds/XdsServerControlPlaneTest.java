package dev.tern.xds;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.Struct;
import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.TestMarshallers;
import dev.tern.xds.server.XdsServerBuilder;
import dev.tern.xds.server.XdsServingStatusListener;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.CidrRange;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.listener.v3.Filter;
import io.envoyproxy.envoy.config.listener.v3.FilterChain;
import io.envoyproxy.envoy.config.listener.v3.FilterChainMatch;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.NonForwardingAction;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * xDS-enabled servers (A36) against the real control plane ({@code tern-xds-controlplane}): a Tern
 * server on 127.0.0.1 whose Listener (filter chains, routes) the control plane pushes, reached by a
 * plain Tern channel. Shows NOT_SERVING before the Listener and after it is removed (connections
 * closed before the server writes a byte, an open one drained with its call in flight finishing),
 * SERVING with it, routes that are not non-forwarding failing UNAVAILABLE, filter chains chosen per
 * connection, and the NACKs of bad server Listeners.
 */
class XdsServerControlPlaneTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String TEMPLATE = "grpc/server?xds.resource.listening_address=%s";
  private static final MethodDescriptor<byte[], byte[]> A_CALL = method("svc.A/Call");
  private static final MethodDescriptor<byte[], byte[]> A_SLOW = method("svc.A/Slow");
  private static final MethodDescriptor<byte[], byte[]> B_CALL = method("svc.B/Call");

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final BlockingQueue<String> statuses = new LinkedBlockingQueue<>();
  private final CountDownLatch slowStarted = new CountDownLatch(1);
  private final CountDownLatch slowRelease = new CountDownLatch(1);
  private final String node = "xds-server-" + System.nanoTime();
  private ControlPlaneProcess cp;
  private int port;
  private String resourceName;

  @BeforeEach
  void startControlPlane() throws Exception {
    cp = ControlPlaneProcess.start();
    closeables.add(cp);
  }

  @AfterEach
  void closeAll() throws Exception {
    slowRelease.countDown();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private static MethodDescriptor<byte[], byte[]> method(String name) {
    return MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
        .setFullMethodName(name)
        .setType(MethodDescriptor.MethodType.UNARY)
        .build();
  }

  private void startServer() throws Exception {
    String json =
        cp.bootstrapJson(node)
            .replaceFirst(
                "\\{", "{\"server_listener_resource_name_template\": \"" + TEMPLATE + "\", ");
    XdsClientPool pool =
        XdsClientPool.withOptions(
            XdsClient.Options.defaults()
                .withDoesNotExistTimeout(Duration.ofSeconds(2))
                .withBackoff(Duration.ofMillis(50), Duration.ofMillis(500)));
    ServerCalls.UnaryMethod<byte[], byte[]> reply =
        (request, response) -> {
          response.onNext("ok".getBytes(UTF_8));
          response.onCompleted();
        };
    ServerCalls.UnaryMethod<byte[], byte[]> slow =
        (request, response) -> {
          slowStarted.countDown();
          try {
            slowRelease.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          response.onNext("slow".getBytes(UTF_8));
          response.onCompleted();
        };
    XdsServingStatusListener listener =
        new XdsServingStatusListener() {
          @Override
          public void onServing() {
            statuses.add("SERVING");
          }

          @Override
          public void onNotServing(Throwable cause) {
            statuses.add("NOT_SERVING: " + cause.getMessage());
          }
        };
    Server server =
        XdsServerBuilder.forServerBuilder(
                NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)))
            .bootstrap(Bootstrap.parse(json, "test bootstrap"))
            .xdsClientPool(pool)
            .drainGraceTime(30, TimeUnit.SECONDS)
            .xdsServingStatusListener(listener)
            .addService(
                ServerServiceDefinition.builder("svc.A")
                    .addMethod(A_CALL, ServerCalls.asyncUnaryCall(reply))
                    .addMethod(A_SLOW, ServerCalls.asyncUnaryCall(slow))
                    .build())
            .addService(
                ServerServiceDefinition.builder("svc.B")
                    .addMethod(B_CALL, ServerCalls.asyncUnaryCall(reply))
                    .build())
            .build()
            .start();
    closeables.add(
        () -> {
          server.shutdownNow();
          server.awaitTermination(5, TimeUnit.SECONDS);
        });
    port = server.getPort();
    resourceName = TEMPLATE.replace("%s", "127.0.0.1:" + port);
  }

  private ManagedChannel channel() {
    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    closeables.add(
        () -> {
          channel.shutdownNow();
          channel.awaitTermination(5, TimeUnit.SECONDS);
        });
    return channel;
  }

  private static Status call(ManagedChannel channel, MethodDescriptor<byte[], byte[]> method) {
    return call(channel, method, CallOptions.DEFAULT);
  }

  /**
   * A call made once the server is SERVING again: the channel may still be backing off from the
   * connections the server refused while it was not (how long depends on when its last attempt
   * failed), so the call waits for a connection instead of failing fast.
   */
  private static Status callWhenServing(
      ManagedChannel channel, MethodDescriptor<byte[], byte[]> method) {
    return call(channel, method, CallOptions.DEFAULT.withWaitForReady());
  }

  private static Status call(
      ManagedChannel channel, MethodDescriptor<byte[], byte[]> method, CallOptions options) {
    try {
      ClientCalls.blockingUnaryCall(
          channel,
          method,
          options.withDeadlineAfter(WAIT.toMillis(), TimeUnit.MILLISECONDS),
          new byte[0]);
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }

  private String awaitStatus() throws InterruptedException {
    String status = statuses.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(status).as("a serving status change").isNotNull();
    return status;
  }

  /**
   * Connects with a plain socket, sends HTTP/2's client preface and an empty SETTINGS frame, and
   * returns how many bytes the server answers before it closes the connection (0 when it closed it
   * without writing any). Fails if the server neither answers nor closes.
   */
  private int bytesAnsweredToAPreface() throws IOException {
    byte[] preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(UTF_8);
    byte[] emptySettings = {0, 0, 0, 4, 0, 0, 0, 0, 0};
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), (int) WAIT.toMillis());
      socket.setSoTimeout((int) WAIT.toMillis());
      try {
        OutputStream out = socket.getOutputStream();
        out.write(preface);
        out.write(emptySettings);
        out.flush();
        return Math.max(0, socket.getInputStream().read(new byte[64]));
      } catch (SocketTimeoutException e) {
        throw new AssertionError("the server neither answered nor closed the connection", e);
      } catch (SocketException e) {
        return 0; // reset: the server had closed it before the preface arrived
      }
    }
  }

  // ---- resources

  private static Route nonForwarding(String prefix) {
    return Route.newBuilder()
        .setMatch(RouteMatch.newBuilder().setPrefix(prefix))
        .setNonForwardingAction(NonForwardingAction.getDefaultInstance())
        .build();
  }

  private static Route forwarding(String prefix) {
    return Route.newBuilder()
        .setMatch(RouteMatch.newBuilder().setPrefix(prefix))
        .setRoute(RouteAction.newBuilder().setCluster("somewhere"))
        .build();
  }

  private static HttpConnectionManager hcm(Route... routes) {
    VirtualHost.Builder host = VirtualHost.newBuilder().setName("all").addDomains("*");
    for (Route route : routes) {
      host.addRoutes(route);
    }
    return HttpConnectionManager.newBuilder()
        .setRouteConfig(RouteConfiguration.newBuilder().setName("inline").addVirtualHosts(host))
        .addHttpFilters(Resources.router())
        .build();
  }

  private static FilterChain chain(String name, FilterChainMatch match, HttpConnectionManager hcm) {
    return FilterChain.newBuilder()
        .setName(name)
        .setFilterChainMatch(match)
        .addFilters(Filter.newBuilder().setName("hcm").setTypedConfig(Any.pack(hcm)))
        .build();
  }

  private Listener listener(String host, int listenerPort, FilterChain... chains) {
    Listener.Builder listener =
        Listener.newBuilder()
            .setName(resourceName)
            .setAddress(
                Address.newBuilder()
                    .setSocketAddress(
                        SocketAddress.newBuilder().setAddress(host).setPortValue(listenerPort)));
    for (FilterChain chain : chains) {
      listener.addFilterChains(chain);
    }
    return listener.build();
  }

  /** Pushes version 1: this server's Listener (127.0.0.1 and its port) with {@code chains}. */
  private void pushListener(FilterChain... chains) {
    cp.setSnapshot(node, "1", List.of(listener("127.0.0.1", port, chains)));
  }

  private Listener serveA() {
    return listener(
        "127.0.0.1",
        port,
        chain(
            "main",
            FilterChainMatch.getDefaultInstance(),
            hcm(nonForwarding("/svc.A/"), forwarding("/svc.B/"))));
  }

  // ---- tests

  @Test
  void notServing_closesEachConnectionWithoutWritingAByte_servingAnswersIt() throws Exception {
    startServer();
    assertThat(awaitStatus()).startsWith("NOT_SERVING");

    // A36: no HTTP/2 SETTINGS (nor GOAWAY, nor a TLS ServerHello) before the Listener.
    assertThat(bytesAnsweredToAPreface()).isZero();

    cp.setSnapshot(node, "1", List.of(serveA()));
    assertThat(awaitStatus()).isEqualTo("SERVING");
    assertThat(bytesAnsweredToAPreface()).isPositive(); // its SETTINGS

    cp.setSnapshot(node, "2", List.of());
    assertThat(awaitStatus()).startsWith("NOT_SERVING").contains("does not exist");
    assertThat(bytesAnsweredToAPreface()).isZero();
  }

  @Test
  void servesOnlyWhileItsListenerExists_andDrainsGracefullyWhenItGoes() throws Exception {
    startServer();
    ManagedChannel channel = channel();

    // No Listener: NOT_SERVING once the control plane says it does not exist; refused.
    assertThat(awaitStatus()).startsWith("NOT_SERVING").contains("does not exist");
    assertThat(call(channel, A_CALL).getCode()).isEqualTo(Status.Code.UNAVAILABLE);

    cp.setSnapshot(node, "1", List.of(serveA()));
    assertThat(awaitStatus()).isEqualTo("SERVING");
    assertThat(callWhenServing(channel, A_CALL).getCode()).isEqualTo(Status.Code.OK);
    // A route of another action than non_forwarding_action fails its calls.
    Status forwarded = call(channel, B_CALL);
    assertThat(forwarded.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(forwarded.getDescription()).contains("non_forwarding_action");

    // A call in flight when the Listener goes away finishes; new calls are refused.
    Future<byte[]> inFlight =
        ClientCalls.futureUnaryCall(
            channel.newCall(
                A_SLOW,
                CallOptions.DEFAULT.withDeadlineAfter(WAIT.toMillis(), TimeUnit.MILLISECONDS)),
            new byte[0]);
    assertThat(slowStarted.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    cp.setSnapshot(node, "2", List.of());
    assertThat(awaitStatus()).startsWith("NOT_SERVING").contains("does not exist");
    assertThat(call(channel, A_CALL).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    slowRelease.countDown();
    assertThat(new String(inFlight.get(WAIT.toMillis(), TimeUnit.MILLISECONDS), UTF_8))
        .isEqualTo("slow");

    // Back: SERVING again.
    cp.setSnapshot(node, "3", List.of(serveA()));
    assertThat(awaitStatus()).isEqualTo("SERVING");
    assertThat(callWhenServing(channel, A_CALL).getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void eachConnectionGetsTheFilterChainThatMatchesItBest() throws Exception {
    startServer();
    // A loopback client matches the SAME_IP_OR_LOOPBACK chain (svc.B only) over the one for any
    // source (svc.A only), and the /32 destination prefix over a /8 one with the same source type.
    FilterChainMatch loopback =
        FilterChainMatch.newBuilder()
            .setSourceType(FilterChainMatch.ConnectionSourceType.SAME_IP_OR_LOOPBACK)
            .addPrefixRanges(range("127.0.0.1", 32))
            .build();
    FilterChainMatch loopbackWide =
        FilterChainMatch.newBuilder()
            .setSourceType(FilterChainMatch.ConnectionSourceType.SAME_IP_OR_LOOPBACK)
            .addPrefixRanges(range("127.0.0.0", 8))
            .build();
    pushListener(
        chain("any-source", FilterChainMatch.getDefaultInstance(), hcm(nonForwarding("/svc.A/"))),
        chain("loopback-wide", loopbackWide, hcm(nonForwarding("/svc.A/"))),
        chain("loopback", loopback, hcm(nonForwarding("/svc.B/"))));
    assertThat(awaitStatus()).isEqualTo("SERVING");
    ManagedChannel channel = channel();

    assertThat(call(channel, B_CALL).getCode()).isEqualTo(Status.Code.OK);
    Status a = call(channel, A_CALL);
    assertThat(a.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(a.getDescription()).contains("no route").contains("/svc.A/Call");
  }

  @Test
  void chainsNamingRds_serveOnceTheRoutesArrive_andTakeRouteUpdatesOnOpenConnections()
      throws Exception {
    startServer();
    HttpConnectionManager byRds =
        Resources.hcm("server-routes").build(); // RDS over ADS, the router filter
    Listener listener =
        listener("127.0.0.1", port, chain("rds", FilterChainMatch.getDefaultInstance(), byRds));
    cp.setSnapshot(node, "1", List.of(listener, rdsRoutes(nonForwarding("/svc.A/"))));
    assertThat(awaitStatus()).isEqualTo("SERVING");
    ManagedChannel channel = channel();
    assertThat(call(channel, A_CALL).getCode()).isEqualTo(Status.Code.OK);

    // svc.A's route becomes a forwarding one: the next call on the same connection fails.
    cp.setSnapshot(node, "2", List.of(listener, rdsRoutes(forwarding("/svc.A/"))));
    Status status = Status.OK;
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (status.isOk() && System.nanoTime() < deadline) {
      status = call(channel, A_CALL); // each call a round trip: polls until the update is in
    }
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).contains("non_forwarding_action");
    assertThat(statuses).isEmpty(); // a route update is no serving-status change
  }

  private static RouteConfiguration rdsRoutes(Route route) {
    return RouteConfiguration.newBuilder()
        .setName("server-routes")
        .addVirtualHosts(VirtualHost.newBuilder().setName("all").addDomains("*").addRoutes(route))
        .build();
  }

  private static CidrRange range(String prefix, int length) {
    return CidrRange.newBuilder()
        .setAddressPrefix(prefix)
        .setPrefixLen(com.google.protobuf.UInt32Value.of(length))
        .build();
  }

  @Test
  void overlappingChains_areNackedNamingBoth() throws Exception {
    startServer();
    FilterChainMatch same =
        FilterChainMatch.newBuilder().addSourcePrefixRanges(range("127.0.0.0", 8)).build();
    pushListener(
        chain("first", same, hcm(nonForwarding("/"))),
        chain("second", same, hcm(nonForwarding("/"))));

    ControlPlaneProcess.Request nack =
        cp.awaitRequest(r -> r.isNack() && r.errorDetail().contains("overlap"), "overlap NACK");
    assertThat(nack.errorDetail())
        .contains("filter_chains[0] \"first\"")
        .contains("filter_chains[1] \"second\"");
    assertThat(call(channel(), A_CALL).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void unknownRequiredHttpFilter_isNacked() throws Exception {
    startServer();
    HttpConnectionManager withUnknown =
        hcm(nonForwarding("/")).toBuilder()
            .clearHttpFilters()
            .addHttpFilters(
                HttpFilter.newBuilder()
                    .setName("mystery")
                    .setTypedConfig(Any.pack(Struct.getDefaultInstance())))
            .addHttpFilters(Resources.router())
            .build();
    pushListener(chain("c", FilterChainMatch.getDefaultInstance(), withUnknown));

    ControlPlaneProcess.Request nack =
        cp.awaitRequest(r -> r.isNack() && r.errorDetail().contains("mystery"), "filter NACK");
    assertThat(nack.errorDetail()).contains("is not supported");
  }

  @Test
  void listenerForAnotherAddress_leavesTheServerNotServing() throws Exception {
    startServer();
    cp.setSnapshot(
        node,
        "1",
        List.of(
            listener(
                "127.0.0.1",
                port == 65535 ? 65534 : port + 1,
                chain("c", FilterChainMatch.getDefaultInstance(), hcm(nonForwarding("/"))))));

    assertThat(awaitStatus())
        .startsWith("NOT_SERVING")
        .contains("this server listens on 127.0.0.1:" + port);
    assertThat(call(channel(), A_CALL).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }
}
