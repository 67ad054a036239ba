package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.BoolValue;
import com.google.protobuf.Message;
import dev.tern.CallOptions;
import dev.tern.ClientInterceptors;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.MetadataUtils;
import dev.tern.testing.LogCapture;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.route.v3.HeaderMatcher;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.extensions.filters.common.fault.v3.FaultDelay;
import io.envoyproxy.envoy.extensions.filters.http.fault.v3.FaultAbort;
import io.envoyproxy.envoy.extensions.filters.http.fault.v3.HTTPFault;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import io.envoyproxy.envoy.type.v3.FractionalPercent;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Fault injection (A33) through the HTTP filter seam (A39), end to end: a channel to {@code
 * xds:///svc} as a user makes it, the real control plane, three Tern backends on 127.0.0.2-4, and a
 * Listener whose HttpConnectionManager has the fault filter before the router.
 */
class XdsFaultInjectionTest {

  private final XdsMesh mesh = new XdsMesh();
  private final String node;
  private ControlPlaneProcess cp;
  private Backends backends;
  private int version;

  XdsFaultInjectionTest(TestInfo info) {
    node = "fault-" + info.getTestMethod().orElseThrow().getName();
  }

  @BeforeEach
  void setUp() throws Exception {
    mesh.start(node, "127.0.0.2", "127.0.0.3", "127.0.0.4");
    cp = mesh.controlPlane();
    backends = mesh.backends();
  }

  @AfterEach
  void closeAll() throws Exception {
    mesh.close();
  }

  private ManagedChannel channel() {
    return mesh.channel();
  }

  private static FractionalPercent percent(int n) {
    return FractionalPercent.newBuilder().setNumerator(n).build();
  }

  private static HTTPFault abort(int grpcStatus, int percent) {
    return HTTPFault.newBuilder()
        .setAbort(FaultAbort.newBuilder().setGrpcStatus(grpcStatus).setPercentage(percent(percent)))
        .build();
  }

  private static HttpFilter filter(String name, Message config) {
    return HttpFilter.newBuilder().setName(name).setTypedConfig(Any.pack(config)).build();
  }

  /** Pushes the next version: Listener svc (with {@code filters} before the router) -> r1. */
  private void push(List<HttpFilter> filters, Route... routes) throws InterruptedException {
    version++;
    HttpConnectionManager.Builder hcm = Resources.hcm("r1");
    for (int i = 0; i < filters.size(); i++) {
      hcm.addHttpFilters(i, filters.get(i));
    }
    LocalityLbEndpoints.Builder locality = Resources.locality("z1", 1, 0);
    for (int i = 0; i < backends.size(); i++) {
      locality.addLbEndpoints(Resources.endpoint(backends.host(i), backends.port(i)));
    }
    cp.setSnapshot(
        node,
        Integer.toString(version),
        List.of(
            Resources.listener("svc", hcm.build()),
            Resources.routes("r1", routes),
            Resources.edsCluster("c1", "e1").build(),
            ClusterLoadAssignment.newBuilder()
                .setClusterName("e1")
                .addEndpoints(locality)
                .build()));
  }

  private void push(List<HttpFilter> filters) throws InterruptedException {
    push(filters, Resources.route("", "c1").build());
  }

  /** A call's status: OK, or the failure's. */
  private static Status call(ManagedChannel channel, CallOptions options, Metadata headers) {
    try {
      ClientCalls.blockingUnaryCall(
          ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers)),
          Backends.NAME,
          options,
          "");
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }

  private static Status call(ManagedChannel channel) {
    return call(
        channel, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), new Metadata());
  }

  private static Metadata header(String name, String value) {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER), value);
    return headers;
  }

  @Test
  void abortAllWithUnavailableFailsEveryCallAndNoBackendSeesOne() throws Exception {
    push(List.of(filter("fault", abort(14, 100))));
    ManagedChannel channel = channel();
    for (int i = 0; i < 50; i++) {
      Status status = call(channel);
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).isEqualTo("injected by xDS fault injection");
    }
    assertThat(backends.calls()).isZero();
  }

  @Test
  void abortHalfFailsAboutHalfOfTheCalls() throws Exception {
    push(List.of(filter("fault", abort(14, 50))));
    ManagedChannel channel = channel();
    int failed = 0;
    for (int i = 0; i < 400; i++) {
      Status status = call(channel);
      if (!status.isOk()) {
        assertThat(status.getDescription()).isEqualTo("injected by xDS fault injection");
        failed++;
      }
    }
    assertThat(failed).isBetween(140, 260);
    assertThat(backends.calls()).isEqualTo(400 - failed);
  }

  @Test
  void aRouteOverrideTurnsTheFaultOffForThatRoute() throws Exception {
    Route quiet =
        Resources.route("", "c1")
            .setMatch(
                RouteMatch.newBuilder()
                    .setPrefix("")
                    .addHeaders(
                        HeaderMatcher.newBuilder()
                            .setName("x-route")
                            .setStringMatch(StringMatcher.newBuilder().setExact("quiet"))))
            .putTypedPerFilterConfig("fault", Any.pack(HTTPFault.getDefaultInstance()))
            .build();
    push(List.of(filter("fault", abort(14, 100))), quiet, Resources.route("", "c1").build());
    ManagedChannel channel = channel();
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
    for (int i = 0; i < 20; i++) {
      assertThat(call(channel, options, header("x-route", "quiet")).isOk()).isTrue();
      assertThat(call(channel, options, header("x-route", "loud")).getCode())
          .isEqualTo(Status.Code.UNAVAILABLE);
    }
    assertThat(backends.calls()).isEqualTo(20);
  }

  @Test
  void aDelayLongerThanTheDeadlineFailsDeadlineExceededWithoutReachingABackend() throws Exception {
    HTTPFault delay =
        HTTPFault.newBuilder()
            .setDelay(
                FaultDelay.newBuilder()
                    .setFixedDelay(com.google.protobuf.Duration.newBuilder().setSeconds(30))
                    .setPercentage(percent(100)))
            .build();
    push(List.of(filter("fault", delay)));
    ManagedChannel channel = channel();
    long start = System.nanoTime();
    Status status =
        call(
            channel,
            CallOptions.DEFAULT.withDeadlineAfter(300, TimeUnit.MILLISECONDS),
            new Metadata());
    assertThat(status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(10));
    assertThat(backends.calls()).isZero();
  }

  @Test
  void headerAbortFailsOnlyTheCallsThatAskForIt() throws Exception {
    HTTPFault headerAbort =
        HTTPFault.newBuilder()
            .setAbort(
                FaultAbort.newBuilder()
                    .setHeaderAbort(FaultAbort.HeaderAbort.getDefaultInstance())
                    .setPercentage(percent(100)))
            .build();
    push(List.of(filter("fault", headerAbort)));
    ManagedChannel channel = channel();
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
    Status aborted = call(channel, options, header("x-envoy-fault-abort-grpc-request", "14"));
    assertThat(aborted.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(aborted.getDescription()).contains("injected by xDS fault injection");
    assertThat(call(channel).isOk()).isTrue();
    assertThat(backends.calls()).isEqualTo(1);
  }

  @Test
  void anUpdateAddingAnUnknownRequiredFilterIsNackedAndCallsKeepTheLastGoodConfig()
      throws Exception {
    push(List.of());
    ManagedChannel channel = channel();
    assertThat(call(channel).isOk()).isTrue();

    try (LogCapture logs = new LogCapture(XdsClient.class)) {
      push(List.of(filter("mystery", BoolValue.of(true))));
      String v = Integer.toString(version);
      ControlPlaneProcess.Request nack =
          cp.awaitRequest(
              r ->
                  r.typeUrl().equals(XdsResourceType.LISTENER.typeUrl())
                      && r.isNack()
                      && r.errorDetail().contains("mystery"),
              "the NACK of the Listener of version " + v);
      assertThat(nack.errorDetail())
          .contains(
              "Listener \"svc\": http_filters[0] \"mystery\": filter type"
                  + " type.googleapis.com/google.protobuf.BoolValue is not supported");
      SimpleFormatter formatter = new SimpleFormatter();
      assertThat(logs.records())
          .map(formatter::formatMessage)
          .anyMatch(m -> m.contains("NACK of Listener version " + v));
    }
    for (int i = 0; i < 20; i++) {
      assertThat(call(channel).isOk()).isTrue();
    }
  }
}
