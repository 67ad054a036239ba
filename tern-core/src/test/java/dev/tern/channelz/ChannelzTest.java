package dev.tern.channelz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.ConnectivityState;
import dev.tern.ManagedChannel;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The registry, and what a real (in-process) channel and server report to it. */
class ChannelzTest {
  private static final MethodDescriptor.Marshaller<String> TEXT =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
          return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
          try {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  private static final MethodDescriptor<String, String> ECHO =
      MethodDescriptor.newBuilder(TEXT, TEXT)
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("test.Echo/Echo")
          .build();

  private final String name = InProcessServerBuilder.generateName();
  private Server server;
  private ManagedChannel channel;

  @AfterEach
  void tearDown() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  private void start() throws IOException {
    ServerServiceDefinition echo =
        ServerServiceDefinition.builder("test.Echo")
            .addMethod(
                ECHO,
                ServerCalls.asyncUnaryCall(
                    (String request, dev.tern.stub.StreamObserver<String> response) -> {
                      if (request.startsWith("fail")) {
                        response.onError(
                            Status.INVALID_ARGUMENT.withDescription(request).asRuntimeException());
                      } else {
                        response.onNext(request);
                        response.onCompleted();
                      }
                    }))
            .build();
    server = InProcessServerBuilder.forName(name).directExecutor().addService(echo).build().start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
  }

  /** Runs {@code total} calls, the first {@code failing} of them failing. */
  private void load(int total, int failing) {
    for (int i = 0; i < total; i++) {
      String request = (i < failing ? "fail " : "ok ") + i;
      try {
        assertThat(ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT, request))
            .isEqualTo(request);
      } catch (StatusRuntimeException e) {
        assertThat(i).isLessThan(failing);
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      }
    }
  }

  /**
   * Waits until {@code channel} is in {@code wanted}: a call can complete just before the state
   * change that made it possible is recorded (the picker is published first).
   */
  static void awaitState(ManagedChannel channel, ConnectivityState wanted) throws Exception {
    CompletableFuture<Void> reached = new CompletableFuture<>();
    Runnable[] watch = new Runnable[1];
    watch[0] =
        () -> {
          ConnectivityState state = channel.getState(false);
          if (state == wanted) {
            reached.complete(null);
          } else {
            channel.notifyWhenStateChanged(state, watch[0]);
          }
        };
    watch[0].run();
    reached.get(10, TimeUnit.SECONDS);
  }

  private Instrumented<ChannelStats> ourChannel() {
    List<Instrumented<ChannelStats>> mine =
        Channelz.global().rootChannels(0, Integer.MAX_VALUE).items().stream()
            .filter(c -> c.channelzName().contains(name))
            .toList();
    assertThat(mine).hasSize(1);
    return mine.get(0);
  }

  private Instrumented<ServerStats> ourServer() {
    List<Instrumented<ServerStats>> mine =
        Channelz.global().servers(0, Integer.MAX_VALUE).items().stream()
            .filter(s -> s.channelzName().contains(name))
            .toList();
    assertThat(mine).hasSize(1);
    return mine.get(0);
  }

  @Test
  void channelAndServerCountCallsAndLeaveTheRegistryWhenTerminated() throws Exception {
    start();
    load(5, 2);
    awaitState(channel, ConnectivityState.READY);

    Instrumented<ChannelStats> channelNode = ourChannel();
    ChannelStats stats = channelNode.channelzStats();
    assertThat(stats.calls().started()).isEqualTo(5);
    assertThat(stats.calls().succeeded()).isEqualTo(3);
    assertThat(stats.calls().failed()).isEqualTo(2);
    assertThat(stats.calls().lastStarted()).isNotNull();
    assertThat(stats.state()).isEqualTo(ConnectivityState.READY);
    assertThat(stats.subchannels()).hasSize(1);
    assertThat(stats.trace().events())
        .extracting(TraceEvent::description)
        .contains("Channel state changed to CONNECTING", "Channel state changed to READY");
    TraceEvent created =
        stats.trace().events().stream().filter(e -> e.child() != null).findFirst().orElseThrow();
    assertThat(created.childIsSubchannel()).isTrue();
    assertThat(created.child()).isEqualTo(stats.subchannels().get(0));

    long subchannelId = stats.subchannels().get(0).id();
    Instrumented<ChannelStats> subchannel = Channelz.global().subchannel(subchannelId);
    assertThat(subchannel).isNotNull();
    ChannelStats subStats = subchannel.channelzStats();
    assertThat(subStats.state()).isEqualTo(ConnectivityState.READY);
    assertThat(subStats.trace().events())
        .extracting(TraceEvent::description)
        .contains("Subchannel state changed to READY");
    // The in-process transport reports no socket: the subchannel has none to count calls on.
    assertThat(subStats.sockets()).isEmpty();

    Instrumented<ServerStats> serverNode = ourServer();
    long serverId = serverNode.channelzId();
    channel.shutdown();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    server.shutdown();
    assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();

    // Every call has ended on the server now.
    CallStats served = serverNode.channelzStats().calls();
    assertThat(served.started()).isEqualTo(5);
    assertThat(served.succeeded()).isEqualTo(3);
    assertThat(served.failed()).isEqualTo(2);
    assertThat(channelNode.channelzStats().state()).isEqualTo(ConnectivityState.SHUTDOWN);

    assertThat(Channelz.global().contains(channelNode.channelzId())).isFalse();
    assertThat(Channelz.global().contains(subchannelId)).isFalse();
    assertThat(Channelz.global().contains(serverId)).isFalse();
  }

  @Test
  void aStreamForAnUnknownMethodCountsAsAFailedCallOnTheServer() throws Exception {
    start();
    MethodDescriptor<String, String> unknown =
        ECHO.toBuilder().setFullMethodName("test.Echo/Missing").build();
    assertThatThrownBy(
            () -> ClientCalls.blockingUnaryCall(channel, unknown, CallOptions.DEFAULT, "x"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
    Instrumented<ServerStats> serverNode = ourServer();
    server.shutdown();
    assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    CallStats served = serverNode.channelzStats().calls();
    assertThat(served.started()).isEqualTo(1);
    assertThat(served.failed()).isEqualTo(1);
    assertThat(ourChannel().channelzStats().calls().failed()).isEqualTo(1);
  }

  @Test
  void aServerIsRegisteredOnlyOnceStarted() throws Exception {
    Server unstarted = InProcessServerBuilder.forName(name).build();
    assertThat(
            Channelz.global().servers(0, Integer.MAX_VALUE).items().stream()
                .filter(s -> s.channelzName().contains(name)))
        .isEmpty();
    unstarted.shutdown();
    assertThat(unstarted.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void pagesAreInIdOrderAndSayWhetherMoreFollow() throws Exception {
    Node a = new Node();
    Node b = new Node();
    Node c = new Node();
    Channelz registry = Channelz.global();
    registry.addRootChannel(a);
    registry.addRootChannel(b);
    registry.addRootChannel(c);
    try {
      Channelz.Page<Instrumented<ChannelStats>> first = registry.rootChannels(a.id, 2);
      assertThat(first.items()).containsExactly(a, b);
      assertThat(first.end()).isFalse();
      Channelz.Page<Instrumented<ChannelStats>> rest = registry.rootChannels(c.id, 2);
      assertThat(rest.items()).containsExactly(c);
      assertThat(rest.end()).isTrue();
      assertThat(registry.rootChannels(Long.MAX_VALUE, 5).items()).isEmpty();
      assertThat(registry.rootChannels(Long.MAX_VALUE, 5).end()).isTrue();
      assertThat(registry.rootChannel(b.id)).isSameAs(b);
      assertThat(registry.subchannel(b.id)).isNull();
    } finally {
      registry.removeRootChannel(a);
      registry.removeRootChannel(b);
      registry.removeRootChannel(c);
    }
    assertThat(registry.contains(a.id) || registry.contains(b.id) || registry.contains(c.id))
        .isFalse();
  }

  @Test
  void badArgumentsAreRefusedNamingThem() {
    assertThatThrownBy(() -> Channelz.global().rootChannels(0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxResults");
    assertThatThrownBy(() -> Channelz.global().servers(0, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxResults");
    assertThatThrownBy(() -> new Ref(0, "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("id");
    Node node = new Node();
    Channelz.global().addRootChannel(node);
    try {
      Node impostor = new Node(node.id);
      assertThatThrownBy(() -> Channelz.global().addRootChannel(impostor))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(String.valueOf(node.id));
    } finally {
      Channelz.global().removeRootChannel(node);
    }
  }

  @Test
  void traceKeepsTheLastEventsAndCountsAll() {
    TraceLog log = new TraceLog();
    for (int i = 0; i < TraceLog.CAPACITY + 8; i++) {
      log.add("event " + i, TraceEvent.Severity.INFO);
    }
    ChannelTrace trace = log.snapshot();
    assertThat(trace.eventsLogged()).isEqualTo(TraceLog.CAPACITY + 8);
    assertThat(trace.events()).hasSize(TraceLog.CAPACITY);
    assertThat(trace.events().get(0).description()).isEqualTo("event 8");
    assertThat(trace.events().get(TraceLog.CAPACITY - 1).description())
        .isEqualTo("event " + (TraceLog.CAPACITY + 7));
  }

  @Test
  void callCounterCountsStartsAndEnds() {
    CallCounter counter = new CallCounter();
    assertThat(counter.snapshot()).isEqualTo(CallStats.NONE);
    counter.callStarted();
    counter.callStarted();
    counter.callEnded(true);
    counter.callEnded(false);
    CallStats stats = counter.snapshot();
    assertThat(stats.started()).isEqualTo(2);
    assertThat(stats.succeeded()).isEqualTo(1);
    assertThat(stats.failed()).isEqualTo(1);
    assertThat(stats.lastStarted()).isNotNull();
  }

  /** A channel node for registry tests. */
  private static final class Node implements Instrumented<ChannelStats> {
    final long id;

    Node() {
      this(Channelz.allocateId());
    }

    Node(long id) {
      this.id = id;
    }

    @Override
    public long channelzId() {
      return id;
    }

    @Override
    public String channelzName() {
      return "test node " + id;
    }

    @Override
    public ChannelStats channelzStats() {
      return new ChannelStats(
          "test",
          ConnectivityState.IDLE,
          CallStats.NONE,
          new TraceLog().snapshot(),
          List.of(),
          List.of());
    }
  }
}
