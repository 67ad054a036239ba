package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.stub.ServerCallStreamObserver;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link XdsClient} with several control planes (A71 fallback, A47 authorities) against scripted
 * in-process ADS servers: a server that is not started is one the client cannot reach. The
 * end-to-end versions, with real control planes, are in {@code XdsFallbackControlPlaneTest}.
 */
class XdsClientFallbackTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String LISTENER_P = "xdstp://a/envoy.config.listener.v3.Listener/l2";

  private final String prefix = InProcessServerBuilder.generateName() + "-";

  /** The server URIs the client made a channel to, in order. */
  private final List<String> channelsMade = new ArrayList<>();

  private final Map<String, BlockingQueue<XdsClientTest.ServerStream>> streams =
      new ConcurrentHashMap<>();
  private final List<Server> servers = new ArrayList<>();
  private final Set<XdsClient> clients = ConcurrentHashMap.newKeySet();

  @AfterEach
  void stop() {
    clients.forEach(XdsClient::close);
    servers.forEach(Server::shutdownNow);
  }

  private static String server(String uri) {
    return "{\"server_uri\": \"" + uri + "\", \"channel_creds\": [{\"type\": \"insecure\"}]}";
  }

  private XdsClient client(String bootstrapJson, boolean fallback) {
    XdsClient client =
        XdsClient.create(
            Bootstrap.parse(bootstrapJson, "test"),
            XdsClient.Options.defaults()
                .withBackoff(Duration.ofMillis(10), Duration.ofMillis(100))
                .withDoesNotExistTimeout(Duration.ofSeconds(30))
                .withChannelFactory(
                    s -> {
                      synchronized (channelsMade) {
                        channelsMade.add(s.serverUri());
                      }
                      return InProcessChannelBuilder.forName(prefix + s.serverUri()).build();
                    }),
            fallback);
    clients.add(client);
    return client;
  }

  /** A client of control planes p then s (s unused unless p fails). */
  private XdsClient primaryThenSecondary(boolean fallback) {
    return client(
        "{\"xds_servers\": [" + server("p") + ", " + server("s") + "], \"node\": {\"id\": \"n1\"}}",
        fallback);
  }

  /** Starts the scripted ADS server {@code uri}; its streams arrive in {@link #nextStream}. */
  private Server start(String uri) throws Exception {
    BlockingQueue<XdsClientTest.ServerStream> queue =
        streams.computeIfAbsent(uri, u -> new LinkedBlockingQueue<>());
    Server server =
        XdsClientTest.adsServer(
            prefix + uri,
            responses -> {
              XdsClientTest.ServerStream stream = new XdsClientTest.ServerStream(responses);
              queue.add(stream);
              return stream.requests::add;
            });
    servers.add(server);
    return server;
  }

  private XdsClientTest.ServerStream nextStream(String uri) throws InterruptedException {
    XdsClientTest.ServerStream s = streams.get(uri).poll(WAIT.toNanos(), TimeUnit.NANOSECONDS);
    assertThat(s).as("a stream to " + uri + " within " + WAIT).isNotNull();
    return s;
  }

  private List<String> channelsMade() {
    synchronized (channelsMade) {
      return List.copyOf(channelsMade);
    }
  }

  /** Waits until every task queued in the client's synchronization context has run. */
  private static void drain(XdsClient client) throws Exception {
    client.resourceStatuses().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  private static void answer(XdsClientTest.ServerStream stream, String version, String rds)
      throws InterruptedException {
    DiscoveryRequest request = stream.next();
    assertThat(request.getTypeUrl()).isEqualTo(XdsResourceType.LISTENER.typeUrl());
    List<Any> listeners = new ArrayList<>();
    for (String name : request.getResourceNamesList()) {
      listeners.add(Any.pack(Resources.listener(name, rds)));
    }
    stream.responses.onNext(
        XdsClientTest.response(
            XdsResourceType.LISTENER, version, "n" + version, listeners.toArray(new Any[0])));
  }

  @Test
  void anUnreachablePrimaryMakesTheClientTakeResourcesFromTheNextServer() throws Exception {
    start("s");
    XdsClient client = primaryThenSecondary(true);
    RecordingWatcher<XdsListener> watcher = new RecordingWatcher<>();
    client.watch(XdsResourceType.LISTENER, "l1", watcher);

    XdsClientTest.ServerStream secondary = nextStream("s");
    answer(secondary, "1", "from-s");
    // A71: no error while a server is left to try; the value comes from the secondary.
    RecordingWatcher.Event<XdsListener> first = watcher.await(e -> true, "an event");
    assertThat(first.changed()).isNotNull();
    assertThat(first.changed().rdsName()).isEqualTo("from-s");
    assertThat(secondary.next().getVersionInfo()).isEqualTo("1"); // ACK

    // The primary is still being retried; once it answers, it wins and the secondary is let go.
    start("p");
    XdsClientTest.ServerStream primary = nextStream("p");
    answer(primary, "7", "from-p");
    assertThat(watcher.awaitChanged().rdsName()).isEqualTo("from-p");
    awaitCancelled(secondary);
  }

  private static void awaitCancelled(XdsClientTest.ServerStream stream)
      throws InterruptedException {
    ServerCallStreamObserver<?> call = (ServerCallStreamObserver<?>) stream.responses;
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!call.isCancelled()) {
      assertThat(System.nanoTime()).as("the stream ends within " + WAIT).isLessThan(deadline);
      Thread.sleep(10); // a poll interval: the loop waits on the condition
    }
  }

  @Test
  void aPrimaryLostAfterEverythingIsCachedCausesNoFallback() throws Exception {
    Server p = start("p");
    start("s");
    XdsClient client = primaryThenSecondary(true);
    RecordingWatcher<XdsListener> watcher = new RecordingWatcher<>();
    client.watch(XdsResourceType.LISTENER, "l1", watcher);
    answer(nextStream("p"), "1", "r1");
    XdsListener cached = watcher.awaitChanged();

    p.shutdownNow();
    // The stream breaks (an error), then reconnecting fails (a connectivity failure, an error
    // again): every resource is cached, so the client stays with the primary.
    watcher.awaitError();
    watcher.awaitError();
    drain(client);
    assertThat(channelsMade()).containsExactly("p");
    RecordingWatcher<XdsListener> late = new RecordingWatcher<>();
    client.watch(XdsResourceType.LISTENER, "l1", late);
    assertThat(late.awaitChanged()).isEqualTo(cached);
    drain(client);
    assertThat(channelsMade()).containsExactly("p");

    // A resource not cached yet, while the primary is unreachable, is what makes it fall back.
    RecordingWatcher<XdsListener> other = new RecordingWatcher<>();
    client.watch(XdsResourceType.LISTENER, "l9", other);
    XdsClientTest.ServerStream secondary = nextStream("s");
    DiscoveryRequest request = secondary.next();
    assertThat(request.getResourceNamesList()).containsExactly("l1", "l9");
  }

  @Test
  void withFallbackSwitchedOffOnlyTheFirstServerIsUsed() throws Exception {
    start("s");
    XdsClient client = primaryThenSecondary(false);
    RecordingWatcher<XdsListener> watcher = new RecordingWatcher<>();
    client.watch(XdsResourceType.LISTENER, "l1", watcher);
    assertThat(watcher.awaitError().getDescription()).contains("ADS stream to p closed");
    drain(client);
    assertThat(channelsMade()).containsExactly("p");
  }

  @Test
  void anAuthorityWithItsOwnServerHasItsOwnStreamAndEqualServersShareOne() throws Exception {
    start("p");
    start("s");
    XdsClient client =
        client(
            "{\"xds_servers\": ["
                + server("p")
                + "], \"node\": {\"id\": \"n1\"}, \"authorities\": {\"a\": {\"xds_servers\": ["
                + server("s")
                + "]}, \"b\": {}, \"c\": {\"xds_servers\": ["
                + server("p")
                + "]}}}",
            true);
    RecordingWatcher<XdsListener> old = new RecordingWatcher<>();
    RecordingWatcher<XdsListener> inA = new RecordingWatcher<>();
    client.watch(XdsResourceType.LISTENER, "l1", old);
    client.watch(XdsResourceType.LISTENER, LISTENER_P, inA);
    client.watch(
        XdsResourceType.LISTENER,
        "xdstp://b/envoy.config.listener.v3.Listener/l3",
        new RecordingWatcher<>());
    client.watch(
        XdsResourceType.LISTENER,
        "xdstp://c/envoy.config.listener.v3.Listener/l4",
        new RecordingWatcher<>());

    // p serves the old-style name, b (no servers of its own) and c (the same server): one stream.
    XdsClientTest.ServerStream p = nextStream("p");
    awaitNames(
        p,
        "l1",
        "xdstp://b/envoy.config.listener.v3.Listener/l3",
        "xdstp://c/envoy.config.listener.v3.Listener/l4");
    XdsClientTest.ServerStream s = nextStream("s");
    awaitNames(s, LISTENER_P);

    // Each server's answer reaches only its own authority's resources.
    s.responses.onNext(
        XdsClientTest.response(
            XdsResourceType.LISTENER,
            "1",
            "x",
            Any.pack(Resources.listener(LISTENER_P, "from-s")),
            Any.pack(Resources.listener("l1", "from-s"))));
    assertThat(inA.awaitChanged().rdsName()).isEqualTo("from-s");
    assertThat(old.poll()).isNull();
    drain(client);
    assertThat(streams.get("p")).isEmpty();
    assertThat(streams.get("s")).isEmpty();
  }

  /** Reads the stream's requests until one asks for exactly {@code names}; none may ask others. */
  private static void awaitNames(XdsClientTest.ServerStream stream, String... names)
      throws InterruptedException {
    while (true) {
      List<String> asked = stream.next().getResourceNamesList();
      assertThat(List.of(names)).containsAll(asked);
      if (asked.size() == names.length) {
        return;
      }
    }
  }

  @Test
  void anXdstpNameOfAnUnknownAuthorityIsAnErrorToItsWatcher() throws Exception {
    XdsClient client = primaryThenSecondary(true);
    RecordingWatcher<XdsCluster> watcher = new RecordingWatcher<>();
    client.watch(
        XdsResourceType.CLUSTER, "xdstp://nope/envoy.config.cluster.v3.Cluster/c1", watcher);
    Status error = watcher.awaitError();
    assertThat(error.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(error.getDescription())
        .isEqualTo(
            "Cluster \"xdstp://nope/envoy.config.cluster.v3.Cluster/c1\": its authority is not in"
                + " the bootstrap's authorities []");
    drain(client);
    assertThat(channelsMade()).isEmpty();
  }
}
