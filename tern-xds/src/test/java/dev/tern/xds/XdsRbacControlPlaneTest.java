package dev.tern.xds;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.UInt32Value;
import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientInterceptors;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.channelz.Channelz;
import dev.tern.channelz.Ref;
import dev.tern.channelz.ServerStats;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.MetadataUtils;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.TestMarshallers;
import dev.tern.xds.server.XdsServerBuilder;
import dev.tern.xds.server.XdsServingStatusListener;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.CidrRange;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.listener.v3.Filter;
import io.envoyproxy.envoy.config.listener.v3.FilterChain;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.rbac.v3.Permission;
import io.envoyproxy.envoy.config.rbac.v3.Policy;
import io.envoyproxy.envoy.config.rbac.v3.Principal;
import io.envoyproxy.envoy.config.rbac.v3.SourcedMetadata;
import io.envoyproxy.envoy.config.route.v3.HeaderMatcher;
import io.envoyproxy.envoy.config.route.v3.NonForwardingAction;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.extensions.filters.http.rbac.v3.RBAC;
import io.envoyproxy.envoy.extensions.filters.http.rbac.v3.RBACPerRoute;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.service.status.v3.ClientConfig;
import io.envoyproxy.envoy.service.status.v3.ClientStatusRequest;
import io.envoyproxy.envoy.service.status.v3.ClientStatusResponse;
import io.envoyproxy.envoy.type.matcher.v3.MetadataMatcher;
import io.envoyproxy.envoy.type.matcher.v3.PathMatcher;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The RBAC HTTP filter (A41) on an xDS-enabled server, against the real control plane: a Tern
 * server on 127.0.0.1 whose Listener carries RBAC policies, reached by a plain Tern channel. Shows
 * DENY and ALLOW policies on paths, a policy pushed mid-test taking effect without a restart, a
 * per-route RBACPerRoute winning over the Listener's config, header and source-IP principals, and
 * an unsupported matcher NACKed with the last good policy kept.
 */
class XdsRbacControlPlaneTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String TEMPLATE = "grpc/server?xds.resource.listening_address=%s";
  private static final MethodDescriptor<byte[], byte[]> A_CALL = method("svc.A/Call");
  private static final MethodDescriptor<byte[], byte[]> B_CALL = method("svc.B/Call");

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final BlockingQueue<String> statuses = new LinkedBlockingQueue<>();
  private final String node = "xds-rbac-" + System.nanoTime();
  private ControlPlaneProcess cp;
  private int port;
  private ManagedChannel channel;
  private final XdsClientPool pool = XdsClientPool.withOptions(XdsClient.Options.defaults());

  @BeforeEach
  void start() throws Exception {
    cp = ControlPlaneProcess.start();
    closeables.add(cp);
    startServer();
    channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    closeables.add(
        () -> {
          channel.shutdownNow();
          channel.awaitTermination(5, TimeUnit.SECONDS);
        });
  }

  @AfterEach
  void closeAll() throws Exception {
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
    ServerCalls.UnaryMethod<byte[], byte[]> reply =
        (request, response) -> {
          response.onNext("ok".getBytes(UTF_8));
          response.onCompleted();
        };
    Server server =
        XdsServerBuilder.forServerBuilder(
                NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)))
            .bootstrap(Bootstrap.parse(json, "test bootstrap"))
            .xdsClientPool(pool)
            .drainGraceTime(5, TimeUnit.SECONDS)
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
                    .addMethod(A_CALL, ServerCalls.asyncUnaryCall(reply))
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
  }

  private Status call(MethodDescriptor<byte[], byte[]> method) {
    return call(channel, method);
  }

  private static Status call(Channel channel, MethodDescriptor<byte[], byte[]> method) {
    try {
      ClientCalls.blockingUnaryCall(
          channel,
          method,
          CallOptions.DEFAULT.withDeadlineAfter(WAIT.toMillis(), TimeUnit.MILLISECONDS),
          new byte[0]);
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }

  /** Calls until the status code is {@code code} (each call a round trip), for up to WAIT. */
  private Status awaitCode(MethodDescriptor<byte[], byte[]> method, Status.Code code) {
    Status status = call(method);
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (status.getCode() != code && System.nanoTime() < deadline) {
      status = call(method);
    }
    return status;
  }

  private void awaitServing() throws InterruptedException {
    assertThat(statuses.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("SERVING");
  }

  // ---- resources

  private static Permission path(String prefix) {
    return Permission.newBuilder()
        .setUrlPath(PathMatcher.newBuilder().setPath(StringMatcher.newBuilder().setPrefix(prefix)))
        .build();
  }

  private static Principal anyone() {
    return Principal.newBuilder().setAny(true).build();
  }

  private static Policy policy(Permission permission, Principal principal) {
    return Policy.newBuilder().addPermissions(permission).addPrincipals(principal).build();
  }

  private static RBAC rbac(
      io.envoyproxy.envoy.config.rbac.v3.RBAC.Action action, Map<String, Policy> policies) {
    return RBAC.newBuilder()
        .setRules(
            io.envoyproxy
                .envoy
                .config
                .rbac
                .v3
                .RBAC
                .newBuilder()
                .setAction(action)
                .putAllPolicies(policies))
        .build();
  }

  private static RBAC deny(Map<String, Policy> policies) {
    return rbac(io.envoyproxy.envoy.config.rbac.v3.RBAC.Action.DENY, policies);
  }

  private static RBAC allow(Map<String, Policy> policies) {
    return rbac(io.envoyproxy.envoy.config.rbac.v3.RBAC.Action.ALLOW, policies);
  }

  private static Route route(String prefix, Map<String, Any> overrides) {
    return Route.newBuilder()
        .setMatch(RouteMatch.newBuilder().setPrefix(prefix))
        .setNonForwardingAction(NonForwardingAction.getDefaultInstance())
        .putAllTypedPerFilterConfig(overrides)
        .build();
  }

  /** Pushes {@code version}: this server's Listener, one chain with the RBAC filter and routes. */
  private void push(String version, RBAC rbac, Route... routes) {
    VirtualHost.Builder host = VirtualHost.newBuilder().setName("all").addDomains("*");
    for (Route route : routes.length > 0 ? routes : new Route[] {route("/", Map.of())}) {
      host.addRoutes(route);
    }
    HttpConnectionManager hcm =
        HttpConnectionManager.newBuilder()
            .setRouteConfig(RouteConfiguration.newBuilder().setName("inline").addVirtualHosts(host))
            .addHttpFilters(HttpFilter.newBuilder().setName("rbac").setTypedConfig(Any.pack(rbac)))
            .addHttpFilters(Resources.router())
            .build();
    Listener listener =
        Listener.newBuilder()
            .setName(TEMPLATE.replace("%s", "127.0.0.1:" + port))
            .setAddress(
                Address.newBuilder()
                    .setSocketAddress(
                        SocketAddress.newBuilder().setAddress("127.0.0.1").setPortValue(port)))
            .addFilterChains(
                FilterChain.newBuilder()
                    .setName("main")
                    .addFilters(Filter.newBuilder().setName("hcm").setTypedConfig(Any.pack(hcm))))
            .build();
    cp.setSnapshot(node, version, List.of(listener));
  }

  // ---- tests

  @Test
  void denyPolicyOnAPath_failsThoseCalls_andAnAllowPolicyPushedLaterTakesOverWithoutARestart()
      throws Exception {
    push("1", deny(Map.of("no-b", policy(path("/svc.B/"), anyone()))));
    awaitServing();

    Status denied = call(B_CALL);
    assertThat(denied.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(denied.getDescription()).isEqualTo("RBAC: access denied"); // no policy named
    assertThat(call(A_CALL).getCode()).isEqualTo(Status.Code.OK);

    // Now only svc.B is allowed: svc.A's calls start failing, svc.B's succeed, on the same server.
    push("2", allow(Map.of("only-b", policy(path("/svc.B/"), anyone()))));
    assertThat(awaitCode(A_CALL, Status.Code.PERMISSION_DENIED).getCode())
        .isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(call(B_CALL).getCode()).isEqualTo(Status.Code.OK);
    assertThat(call(A_CALL).getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(statuses).isEmpty(); // a policy change is no serving-status change
  }

  @Test
  void rbacPerRouteOverride_winsOverTheListenersConfig() throws Exception {
    // The Listener's filter has no rules (enforces nothing); svc.A's route denies everyone, and
    // svc.B's route has an RBACPerRoute without rbac (enforces nothing either).
    RBACPerRoute denyAll =
        RBACPerRoute.newBuilder()
            .setRbac(deny(Map.of("everyone", policy(path("/"), anyone()))))
            .build();
    push(
        "1",
        RBAC.getDefaultInstance(),
        route("/svc.A/", Map.of("rbac", Any.pack(denyAll))),
        route("/svc.B/", Map.of("rbac", Any.pack(RBACPerRoute.getDefaultInstance()))));
    awaitServing();

    assertThat(call(A_CALL).getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(call(B_CALL).getCode()).isEqualTo(Status.Code.OK);

    // The other way round: the Listener allows nothing, svc.B's override allows everything.
    RBACPerRoute allowAll =
        RBACPerRoute.newBuilder()
            .setRbac(allow(Map.of("everyone", policy(path("/"), anyone()))))
            .build();
    push(
        "2",
        allow(Map.of()),
        route("/svc.A/", Map.of()),
        route("/svc.B/", Map.of("rbac", Any.pack(allowAll))));
    assertThat(awaitCode(A_CALL, Status.Code.PERMISSION_DENIED).getCode())
        .isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(call(B_CALL).getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  @SuppressWarnings("deprecation") // source_ip, which A41 covers
  void headerAndSourceIpPrincipals() throws Exception {
    Principal mallory =
        Principal.newBuilder()
            .setHeader(HeaderMatcher.newBuilder().setName("x-user").setExactMatch("mallory"))
            .build();
    Principal fromLoopback =
        Principal.newBuilder()
            .setSourceIp(
                CidrRange.newBuilder()
                    .setAddressPrefix("127.0.0.0")
                    .setPrefixLen(UInt32Value.of(8)))
            .build();
    Principal fromTenNet =
        Principal.newBuilder()
            .setDirectRemoteIp(
                CidrRange.newBuilder().setAddressPrefix("10.0.0.0").setPrefixLen(UInt32Value.of(8)))
            .build();
    // ALLOW: svc.A from 127/8 unless the caller says it is mallory; svc.B only from 10/8.
    Principal notMallory = Principal.newBuilder().setNotId(mallory).build();
    Policy aFromLoopback =
        Policy.newBuilder()
            .addPermissions(path("/svc.A/"))
            .addPrincipals(
                Principal.newBuilder()
                    .setAndIds(Principal.Set.newBuilder().addIds(fromLoopback).addIds(notMallory)))
            .build();
    push(
        "1",
        allow(
            Map.of(
                "a-from-loopback",
                aFromLoopback,
                "b-from-ten",
                policy(path("/svc.B/"), fromTenNet))));
    awaitServing();

    assertThat(call(A_CALL).getCode()).isEqualTo(Status.Code.OK);
    assertThat(call(B_CALL).getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    Metadata asMallory = new Metadata();
    asMallory.put(Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER), "mallory");
    Channel mallorys =
        ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(asMallory));
    assertThat(call(mallorys, A_CALL).getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    Metadata asAlice = new Metadata();
    asAlice.put(Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER), "alice");
    Channel alices =
        ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(asAlice));
    assertThat(call(alices, A_CALL).getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  @SuppressWarnings("deprecation") // MetadataMatcher
  void unsupportedMatcher_isNackedNamingTheField_andTheLastGoodPolicyStays() throws Exception {
    push("1", deny(Map.of("no-b", policy(path("/svc.B/"), anyone()))));
    awaitServing();
    assertThat(call(B_CALL).getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);

    Permission sourced =
        Permission.newBuilder()
            .setSourcedMetadata(
                SourcedMetadata.newBuilder()
                    .setMetadataMatcher(MetadataMatcher.newBuilder().setFilter("f")))
            .build();
    push("2", deny(Map.of("odd", policy(sourced, anyone()))));

    ControlPlaneProcess.Request nack =
        cp.awaitRequest(r -> r.isNack() && r.versionInfo().equals("1"), "NACK of version 2");
    assertThat(nack.errorDetail())
        .contains("http_filters[0] \"rbac\"")
        .contains("rules.policies[\"odd\"].permissions[0].sourced_metadata: not supported");
    assertThat(call(B_CALL).getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(call(A_CALL).getCode()).isEqualTo(Status.Code.OK);
    assertThat(statuses).isEmpty();
  }

  @Test
  void theServersXdsStateShowsInCsds_andTheServerInChannelz() throws Exception {
    push("1", deny(Map.of("no-b", policy(path("/svc.B/"), anyone()))));
    awaitServing();

    // CSDS over the server's xDS client: its Listener, ACKed, with the RBAC filter in it.
    ClientStatusResponse csds =
        CsdsService.forClients(pool::clients)
            .answer(ClientStatusRequest.getDefaultInstance())
            .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    String resourceName = TEMPLATE.replace("%s", "127.0.0.1:" + port);
    assertThat(csds.getConfig(0).getClientScope()).isEqualTo("#server"); // A71's key for servers
    ClientConfig.GenericXdsConfig listener =
        csds.getConfig(0).getGenericXdsConfigsList().stream()
            .filter(c -> c.getName().equals(resourceName))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no Listener in " + csds));
    assertThat(listener.getTypeUrl()).isEqualTo(XdsResourceType.LISTENER.typeUrl());
    assertThat(listener.getClientStatus())
        .isEqualTo(io.envoyproxy.envoy.admin.v3.ClientResourceStatus.ACKED);
    assertThat(listener.getVersionInfo()).isEqualTo("1");
    assertThat(listener.getXdsConfig().unpack(Listener.class).getFilterChains(0).getName())
        .isEqualTo("main");

    // Channelz: the xDS server is a server like any other, listening on its port.
    boolean found = false;
    for (var server : Channelz.global().servers(0, 10_000).items()) {
      ServerStats stats = server.channelzStats();
      for (Ref socket : stats.listenSockets()) {
        var listening = Channelz.global().socket(socket.id());
        if (listening != null
            && listening.channelzStats().local() instanceof InetSocketAddress local
            && local.getPort() == port) {
          found = true;
        }
      }
    }
    assertThat(found).as("a channelz server listening on port " + port).isTrue();
  }
}
