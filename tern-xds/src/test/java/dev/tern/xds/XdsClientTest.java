package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import dev.tern.MetricInstrument;
import dev.tern.MetricRecorder;
import dev.tern.MetricSink;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.stub.ServerCallStreamObserver;
import dev.tern.stub.StreamObserver;
import dev.tern.testing.LogCapture;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceTern;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link XdsClient}'s protocol details against a scripted in-process ADS server, where the test
 * decides every response: what a real control plane cannot be made to send (duplicates, wrapped
 * resources, the wrong type, a stream closed at a chosen moment).
 */
class XdsClientTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  /** One ADS stream as the server sees it. */
  static final class ServerStream {
    final BlockingQueue<DiscoveryRequest> requests = new LinkedBlockingQueue<>();
    final StreamObserver<DiscoveryResponse> responses;

    ServerStream(StreamObserver<DiscoveryResponse> responses) {
      this.responses = responses;
    }

    DiscoveryRequest next() throws InterruptedException {
      DiscoveryRequest r = requests.poll(WAIT.toNanos(), TimeUnit.NANOSECONDS);
      assertThat(r).as("a request within " + WAIT).isNotNull();
      return r;
    }
  }

  private final BlockingQueue<ServerStream> streams = new LinkedBlockingQueue<>();

  /** A78's counters as {@code name value labels}, in the order the client recorded them. */
  private final List<String> metrics = new CopyOnWriteArrayList<>();

  private Server server;
  private XdsClient client;

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    server =
        adsServer(
            name,
            responses -> {
              ServerStream stream = new ServerStream(responses);
              streams.add(stream);
              return stream.requests::add;
            });
    Bootstrap bootstrap =
        Bootstrap.parse(
            "{\"xds_servers\": [{\"server_uri\": \"in-process\", \"channel_creds\": [{\"type\":"
                + " \"insecure\"}]}], \"node\": {\"id\": \"n1\"}}",
            "test");
    client =
        XdsClient.create(
            bootstrap,
            XdsClient.Options.defaults()
                .withBackoff(Duration.ofMillis(10), Duration.ofMillis(100))
                .withDoesNotExistTimeout(Duration.ofSeconds(30))
                .withChannelFactory(s -> InProcessChannelBuilder.forName(name).build()));
    client.useMetricRecorder(MetricRecorder.of("xds:///test", List.of(new CountingSink())));
  }

  /** The gauge callbacks the client registered (A78's gauges), until it closes them. */
  private final List<MetricRecorder.BatchCallback> gaugeCallbacks = new CopyOnWriteArrayList<>();

  /**
   * A78's gauges as {@code name value labels}, as a sink collects them: once the client has run
   * what is queued (its CSDS snapshot is taken in its synchronization context, after the tasks
   * before it).
   */
  private List<String> gauges() throws Exception {
    client.resourceStatuses().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    List<String> values = new ArrayList<>();
    for (MetricRecorder.BatchCallback callback : gaugeCallbacks) {
      callback.collect(
          (gauge, value, labels, optional) ->
              values.add(gauge.name() + " " + value + " " + labels));
    }
    return values;
  }

  /** Keeps the counters the client adds and the gauge callbacks it registers. */
  private final class CountingSink implements MetricSink {
    @Override
    public void addLongCounter(
        MetricInstrument instrument, long value, List<String> labels, List<String> optional) {
      metrics.add(instrument.name() + " " + value + " " + labels);
    }

    @Override
    public void addLongUpDownCounter(
        MetricInstrument instrument, long value, List<String> labels, List<String> optional) {
      throw new AssertionError(instrument.name());
    }

    @Override
    public void recordDoubleHistogram(
        MetricInstrument instrument, double value, List<String> labels, List<String> optional) {
      throw new AssertionError(instrument.name());
    }

    @Override
    public MetricRecorder.Registration registerBatchCallback(
        MetricRecorder.BatchCallback callback, List<MetricInstrument> gauges) {
      assertThat(gauges)
          .extracting(MetricInstrument::name)
          .containsExactly("grpc.xds_client.connected", "grpc.xds_client.resources");
      gaugeCallbacks.add(callback);
      return () -> gaugeCallbacks.remove(callback);
    }
  }

  /**
   * An in-process ADS server: {@code stream} is given each stream's response observer and returns
   * what to do with each request received on it.
   */
  static Server adsServer(
      String name, Function<StreamObserver<DiscoveryResponse>, Consumer<DiscoveryRequest>> stream)
      throws IOException {
    return InProcessServerBuilder.forName(name)
        .addService(
            new AggregatedDiscoveryServiceTern.AggregatedDiscoveryServiceImplBase() {
              @Override
              public StreamObserver<DiscoveryRequest> streamAggregatedResources(
                  StreamObserver<DiscoveryResponse> responses) {
                Consumer<DiscoveryRequest> onRequest = stream.apply(responses);
                return new StreamObserver<>() {
                  @Override
                  public void onNext(DiscoveryRequest value) {
                    onRequest.accept(value);
                  }

                  @Override
                  public void onError(Throwable t) {}

                  @Override
                  public void onCompleted() {}
                };
              }
            })
        .build()
        .start();
  }

  @AfterEach
  void stop() {
    client.close();
    server.shutdownNow();
  }

  /** The ACK or NACK of the response with {@code nonce}, skipping requests sent before it. */
  private static DiscoveryRequest answerTo(ServerStream stream, String nonce)
      throws InterruptedException {
    DiscoveryRequest request = stream.next();
    while (!request.getResponseNonce().equals(nonce)) {
      request = stream.next();
    }
    return request;
  }

  private ServerStream nextStream() throws InterruptedException {
    ServerStream s = streams.poll(WAIT.toNanos(), TimeUnit.NANOSECONDS);
    assertThat(s).as("a stream within " + WAIT).isNotNull();
    return s;
  }

  static DiscoveryResponse response(
      XdsResourceType<?> type, String version, String nonce, Any... resources) {
    DiscoveryResponse.Builder r =
        DiscoveryResponse.newBuilder()
            .setTypeUrl(type.typeUrl())
            .setVersionInfo(version)
            .setNonce(nonce);
    for (Any a : resources) {
      r.addResources(a);
    }
    return r.build();
  }

  private static Any any(Message m) {
    return Any.pack(m);
  }

  @Test
  void onlyTheFirstRequestOfAStreamCarriesTheNode() throws Exception {
    client.watch(XdsResourceType.CLUSTER, "c1", new RecordingWatcher<>());
    ServerStream stream = nextStream();
    DiscoveryRequest first = stream.next();
    assertThat(first.getNode().getId()).isEqualTo("n1");
    assertThat(first.getTypeUrl()).isEqualTo(XdsResourceType.CLUSTER.typeUrl());
    assertThat(first.getResourceNamesList()).containsExactly("c1");
    assertThat(first.getVersionInfo()).isEmpty();
    assertThat(first.getResponseNonce()).isEmpty();

    client.watch(XdsResourceType.ENDPOINTS, "e1", new RecordingWatcher<>());
    DiscoveryRequest second = stream.next();
    assertThat(second.hasNode()).isFalse();
    assertThat(second.getResourceNamesList()).containsExactly("e1");
  }

  @Test
  void wrappedResourcesAreUnwrapped() throws Exception {
    RecordingWatcher<XdsCluster> watcher = new RecordingWatcher<>();
    client.watch(XdsResourceType.CLUSTER, "c1", watcher);
    ServerStream stream = nextStream();
    stream.next();
    Any wrapped =
        any(
            Resource.newBuilder()
                .setName("c1")
                .setResource(any(Resources.edsCluster("c1", "").build()))
                .build());
    stream.responses.onNext(response(XdsResourceType.CLUSTER, "1", "a", wrapped));
    assertThat(watcher.awaitChanged().name()).isEqualTo("c1");
    DiscoveryRequest ack = stream.next();
    assertThat(ack.getVersionInfo()).isEqualTo("1");
    assertThat(ack.getResponseNonce()).isEqualTo("a");
    assertThat(ack.hasErrorDetail()).isFalse();
  }

  @Test
  void duplicatesAndResourcesOfTheWrongTypeAreNacked() throws Exception {
    RecordingWatcher<XdsCluster> watcher = new RecordingWatcher<>();
    client.watch(XdsResourceType.CLUSTER, "c1", watcher);
    ServerStream stream = nextStream();
    stream.next();
    stream.responses.onNext(
        response(XdsResourceType.CLUSTER, "1", "a", any(Resources.edsCluster("c1", "").build())));
    watcher.awaitChanged();
    stream.next(); // ACK

    try (LogCapture logs = new LogCapture(XdsClient.class)) {
      stream.responses.onNext(
          response(
              XdsResourceType.CLUSTER,
              "2",
              "b",
              any(Resources.edsCluster("c1", "x").build()),
              any(Resources.edsCluster("c1", "y").build()),
              any(Resources.routes("r1", "c1"))));
      DiscoveryRequest nack = stream.next();
      assertThat(nack.getVersionInfo()).isEqualTo("1");
      assertThat(nack.getResponseNonce()).isEqualTo("b");
      assertThat(nack.getErrorDetail().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT.value());
      assertThat(nack.getErrorDetail().getMessage())
          .isEqualTo(
              "Cluster \"c1\": sent twice in one response; Cluster: a resource of type"
                  + " type.googleapis.com/envoy.config.route.v3.RouteConfiguration in a Cluster"
                  + " response");
      assertThat(watcher.awaitError().getDescription()).contains("sent twice");
      assertThat(messages(logs)).anyMatch(m -> m.contains("NACK of Cluster version 2"));
    }
    // A78: the first response's cluster was valid; the second's named cluster was not.
    String labels = "[xds:///test, in-process, envoy.config.cluster.v3.Cluster]";
    assertThat(metrics)
        .startsWith("grpc.xds_client.resource_updates_valid 1 " + labels)
        .contains("grpc.xds_client.resource_updates_invalid 1 " + labels);
  }

  @Test
  void gaugesReportTheServerConnectedAndTheResourcesByCacheState() throws Exception {
    String cluster = "envoy.config.cluster.v3.Cluster";
    RecordingWatcher<XdsCluster> c1 = new RecordingWatcher<>();
    RecordingWatcher<XdsCluster> c2 = new RecordingWatcher<>();
    client.watch(XdsResourceType.CLUSTER, "c1", c1);
    client.watch(XdsResourceType.CLUSTER, "c2", c2);
    ServerStream first = nextStream();
    while (first.next().getResourceNamesCount() < 2) {
      // the two watches may go out in one request or two
    }
    // A78: connected from the stream's start; both resources asked for, none received.
    assertThat(gauges())
        .containsExactlyInAnyOrder(
            "grpc.xds_client.connected 1 [xds:///test, in-process]",
            "grpc.xds_client.resources 2 [xds:///test, #old, requested, " + cluster + "]");

    first.responses.onNext(
        response(XdsResourceType.CLUSTER, "1", "a", any(Resources.edsCluster("c1", "").build())));
    c1.awaitChanged();
    answerTo(first, "a");
    assertThat(gauges())
        .containsExactlyInAnyOrder(
            "grpc.xds_client.connected 1 [xds:///test, in-process]",
            "grpc.xds_client.resources 1 [xds:///test, #old, acked, " + cluster + "]",
            "grpc.xds_client.resources 1 [xds:///test, #old, requested, " + cluster + "]");

    try (LogCapture logs = new LogCapture(XdsClient.class)) {
      // Both sent twice: c1 keeps its cached value, c2 has none.
      first.responses.onNext(
          response(
              XdsResourceType.CLUSTER,
              "2",
              "b",
              any(Resources.edsCluster("c1", "x").build()),
              any(Resources.edsCluster("c1", "y").build()),
              any(Resources.edsCluster("c2", "x").build()),
              any(Resources.edsCluster("c2", "y").build())));
      assertThat(answerTo(first, "b").hasErrorDetail()).isTrue();
      assertThat(gauges())
          .containsExactlyInAnyOrder(
              "grpc.xds_client.connected 1 [xds:///test, in-process]",
              "grpc.xds_client.resources 1 [xds:///test, #old, nacked_but_cached, " + cluster + "]",
              "grpc.xds_client.resources 1 [xds:///test, #old, nacked, " + cluster + "]");

      // A stream that had a response closes: reconnected at once, still connected. The next one
      // fails before any response (A57): not connected until a response arrives.
      first.responses.onError(Status.UNAVAILABLE.withDescription("going away").asException());
      ServerStream second = nextStream();
      second.next();
      second.responses.onError(Status.UNAVAILABLE.withDescription("unreachable").asException());
      ServerStream third = nextStream();
      third.next();
      assertThat(gauges()).contains("grpc.xds_client.connected 0 [xds:///test, in-process]");
      third.responses.onNext(
          response(XdsResourceType.CLUSTER, "3", "c", any(Resources.edsCluster("c1", "").build())));
      answerTo(third, "c");
      assertThat(gauges()).contains("grpc.xds_client.connected 1 [xds:///test, in-process]");
      assertThat(messages(logs)).anyMatch(m -> m.contains("NACK of Cluster version 2"));
    }

    client.close();
    assertThat(gauges()).isEmpty();
  }

  @Test
  void clusterAbsentFromAResponseIsDeletedButEndpointsAreNot() throws Exception {
    RecordingWatcher<XdsCluster> c1 = new RecordingWatcher<>();
    RecordingWatcher<XdsCluster> c2 = new RecordingWatcher<>();
    RecordingWatcher<XdsEndpoints> e1 = new RecordingWatcher<>();
    RecordingWatcher<XdsEndpoints> e2 = new RecordingWatcher<>();
    client.watch(XdsResourceType.CLUSTER, "c1", c1);
    client.watch(XdsResourceType.CLUSTER, "c2", c2);
    client.watch(XdsResourceType.ENDPOINTS, "e1", e1);
    client.watch(XdsResourceType.ENDPOINTS, "e2", e2);
    ServerStream stream = nextStream();
    for (int i = 0; i < 4; i++) {
      stream.next();
    }
    stream.responses.onNext(
        response(
            XdsResourceType.CLUSTER,
            "1",
            "a",
            any(Resources.edsCluster("c1", "").build()),
            any(Resources.edsCluster("c2", "").build())));
    stream.responses.onNext(
        response(
            XdsResourceType.ENDPOINTS,
            "1",
            "b",
            any(Resources.endpoints("e1", 1)),
            any(Resources.endpoints("e2", 2))));
    c1.awaitChanged();
    c2.awaitChanged();
    e1.awaitChanged();
    e2.awaitChanged();

    stream.responses.onNext(
        response(XdsResourceType.ENDPOINTS, "2", "c", any(Resources.endpoints("e1", 3))));
    stream.responses.onNext(
        response(XdsResourceType.CLUSTER, "2", "d", any(Resources.edsCluster("c1", "z").build())));
    assertThat(c2.awaitDoesNotExist()).isEqualTo("c2");
    assertThat(e1.awaitChanged().localities().get(0).endpoints().get(0).port()).isEqualTo(3);
    assertThat(e2.poll()).isNull(); // RDS and EDS responses may carry a subset
  }

  @Test
  void brokenStreamIsReopenedWithEverySubscriptionAndTheVersionsKnown() throws Exception {
    RecordingWatcher<XdsCluster> cluster = new RecordingWatcher<>();
    RecordingWatcher<XdsListener> listener = new RecordingWatcher<>();
    client.watch(XdsResourceType.CLUSTER, "c1", cluster);
    client.watch(XdsResourceType.LISTENER, "l1", listener);
    ServerStream first = nextStream();
    first.next();
    first.next();
    first.responses.onNext(
        response(XdsResourceType.CLUSTER, "7", "a", any(Resources.edsCluster("c1", "").build())));
    XdsCluster cached = cluster.awaitChanged();
    first.next(); // ACK

    try (LogCapture logs = new LogCapture(XdsClient.class)) {
      first.responses.onError(Status.UNAVAILABLE.withDescription("going away").asException());
      assertThat(cluster.awaitError().getDescription()).contains("going away");
      ServerStream second = nextStream();
      DiscoveryRequest lds = second.next();
      DiscoveryRequest cds = second.next();
      assertThat(lds.getTypeUrl()).isEqualTo(XdsResourceType.LISTENER.typeUrl());
      assertThat(lds.getNode().getId()).isEqualTo("n1");
      assertThat(lds.getVersionInfo()).isEmpty();
      assertThat(cds.getTypeUrl()).isEqualTo(XdsResourceType.CLUSTER.typeUrl());
      assertThat(cds.getVersionInfo()).isEqualTo("7");
      assertThat(cds.getResponseNonce()).isEmpty(); // nonces belong to a stream
      assertThat(cds.getResourceNamesList()).containsExactly("c1");
      assertThat(messages(logs)).anyMatch(m -> m.contains("going away"));

      // A stream that fails before any response is retried after a back-off, again and again.
      second.responses.onError(Status.UNAVAILABLE.withDescription("again").asException());
      ServerStream third = nextStream();
      third.next();
      third.responses.onError(Status.UNAVAILABLE.withDescription("and again").asException());
      nextStream().next();
    }
    // A78 (A57): the streams that failed before any response are server failures; the first,
    // which had one, is not.
    assertThat(metrics)
        .filteredOn(m -> m.startsWith("grpc.xds_client.server_failure"))
        .containsExactly(
            "grpc.xds_client.server_failure 1 [xds:///test, in-process]",
            "grpc.xds_client.server_failure 1 [xds:///test, in-process]");
    RecordingWatcher<XdsCluster> late = new RecordingWatcher<>();
    client.watch(XdsResourceType.CLUSTER, "c1", late);
    assertThat(late.awaitChanged()).isEqualTo(cached);
  }

  @Test
  void aFloodingControlPlaneIsHeldBackByFlowControl() throws Exception {
    client.close();
    String name = InProcessServerBuilder.generateName();
    int versions = 500;
    AtomicInteger sent = new AtomicInteger();
    AtomicInteger handled = new AtomicInteger();
    AtomicInteger mostAhead = new AtomicInteger();
    Server flooding =
        adsServer(
            name,
            responses -> {
              ServerCallStreamObserver<DiscoveryResponse> out =
                  (ServerCallStreamObserver<DiscoveryResponse>) responses;
              Runnable push =
                  () -> {
                    // As fast as the transport lets it: every response the client will take.
                    while (out.isReady() && sent.get() < versions) {
                      int v = sent.incrementAndGet();
                      out.onNext(
                          response(
                              XdsResourceType.ENDPOINTS,
                              Integer.toString(v),
                              "n" + v,
                              any(Resources.endpoints("e1", v))));
                      mostAhead.accumulateAndGet(v - handled.get(), Math::max);
                    }
                  };
              out.setOnReadyHandler(push);
              return request -> {};
            });
    try (XdsClient flooded =
        XdsClient.create(
            client.bootstrap(),
            XdsClient.Options.defaults()
                .withChannelFactory(s -> InProcessChannelBuilder.forName(name).build()))) {
      RecordingWatcher<XdsEndpoints> watcher =
          new RecordingWatcher<>() {
            @Override
            public void onChanged(XdsEndpoints resource) {
              handled.incrementAndGet();
              super.onChanged(resource);
            }
          };
      flooded.watch(XdsResourceType.ENDPOINTS, "e1", watcher);
      watcher.awaitChanged(e -> e.localities().get(0).endpoints().get(0).port() == versions);
      // The client asks for one response at a time, once it has handled the last: the server,
      // sending whenever the transport let it, was never more than one response ahead of the
      // watcher (which hears each before the client asks for the next).
      assertThat(mostAhead.get()).isEqualTo(1);
      assertThat(handled.get()).isEqualTo(versions);
    } finally {
      flooding.shutdownNow();
    }
  }

  @Test
  void doesNotExistTimerStopsWhenTheResourceArrives() throws Exception {
    client.close();
    String name = InProcessServerBuilder.generateName();
    Server other =
        adsServer(
            name,
            responses ->
                request -> {
                  if (request.getVersionInfo().isEmpty()) {
                    responses.onNext(
                        response(
                            XdsResourceType.CLUSTER,
                            "1",
                            "a",
                            any(Resources.edsCluster("c1", "").build())));
                  }
                });
    try (XdsClient shortTimer =
        XdsClient.create(
            client.bootstrap(),
            XdsClient.Options.defaults()
                .withDoesNotExistTimeout(Duration.ofMillis(100))
                .withChannelFactory(s -> InProcessChannelBuilder.forName(name).build()))) {
      RecordingWatcher<XdsCluster> present = new RecordingWatcher<>();
      RecordingWatcher<XdsCluster> absent = new RecordingWatcher<>();
      shortTimer.watch(XdsResourceType.CLUSTER, "c1", present);
      present.awaitChanged();
      shortTimer.watch(XdsResourceType.CLUSTER, "c2", absent);
      // c2's timer fires after c1's would have: c1 heard nothing more by then.
      absent.awaitDoesNotExist();
      assertThat(present.poll()).isNull();
    } finally {
      other.shutdownNow();
    }
  }

  /** What {@code logs} captured, each message formatted with its parameters. */
  static List<String> messages(LogCapture logs) {
    SimpleFormatter formatter = new SimpleFormatter();
    return logs.records().stream().map(formatter::formatMessage).toList();
  }
}
