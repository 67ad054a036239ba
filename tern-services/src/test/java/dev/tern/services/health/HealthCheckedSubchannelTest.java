package dev.tern.services.health;

import static dev.tern.ConnectivityState.CONNECTING;
import static dev.tern.ConnectivityState.IDLE;
import static dev.tern.ConnectivityState.READY;
import static dev.tern.ConnectivityState.SHUTDOWN;
import static dev.tern.ConnectivityState.TRANSIENT_FAILURE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.BindableService;
import dev.tern.Channel;
import dev.tern.ClientStreamTracer;
import dev.tern.ConnectivityState;
import dev.tern.ConnectivityStateInfo;
import dev.tern.EquivalentAddressGroup;
import dev.tern.ForwardingServerCallListener;
import dev.tern.LoadBalancer;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.services.health.v1.HealthCheckRequest;
import dev.tern.services.health.v1.HealthCheckResponse;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.services.health.v1.HealthTern;
import dev.tern.stub.StreamObserver;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One health-checked subchannel's states as its balancer hears them, over a fake connection (the
 * test sets its state) whose calls go to an in-process server with a health service.
 */
class HealthCheckedSubchannelTest {
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final List<Throwable> syncErrors = new ArrayList<>();
  private final SynchronizationContext sync =
      new SynchronizationContext((thread, error) -> syncErrors.add(error));
  private final ScheduledExecutorService timer =
      cleanup.register(Executors.newSingleThreadScheduledExecutor());
  private final BlockingQueue<ConnectivityStateInfo> states = new LinkedBlockingQueue<>();
  private final HealthStatusManager health = new HealthStatusManager();
  private final AtomicInteger watchesEnded = new AtomicInteger();
  private final BlockingQueue<String> serverEvents = new LinkedBlockingQueue<>();
  private FakeConnection connection;
  private HealthCheckedSubchannel subchannel;

  @AfterEach
  void noErrorsInTheContext() throws InterruptedException {
    if (subchannel != null) {
      inContext(subchannel::shutdown);
    }
    assertThat(syncErrors).isEmpty();
  }

  /** Starts a server with {@code service} (null: none) and the subchannel under test. */
  private void start(BindableService service, String serviceName, long backoffNanos)
      throws Exception {
    String name = cleanup.uniqueName();
    InProcessServerBuilder server = InProcessServerBuilder.forName(name).intercept(recording());
    if (service != null) {
      server.addService(service);
    }
    cleanup.register(server.build()).start();
    connection =
        new FakeConnection(cleanup.register(InProcessChannelBuilder.forName(name).build()));
    subchannel = new HealthCheckedSubchannel(connection, sync, timer, backoffNanos, serviceName);
    sync.execute(() -> subchannel.start(states::add));
  }

  /** Notes on the server side when a Watch ends, and how ("cancelled", "completed"). */
  private ServerInterceptor recording() {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
            next.startCall(call, headers)) {
          @Override
          public void onCancel() {
            serverEvents.add("cancelled");
            super.onCancel();
          }

          @Override
          public void onComplete() {
            serverEvents.add("completed");
            super.onComplete();
          }
        };
      }
    };
  }

  private void connectionState(ConnectivityState state) {
    sync.execute(
        () -> connection.listener.onSubchannelState(ConnectivityStateInfo.forNonError(state)));
  }

  /** Runs {@code task} in the synchronization context and waits until it has run. */
  private void inContext(Runnable task) throws InterruptedException {
    CountDownLatch done = new CountDownLatch(1);
    sync.execute(
        () -> {
          task.run();
          done.countDown();
        });
    assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
  }

  private ConnectivityStateInfo next() throws InterruptedException {
    ConnectivityStateInfo state = states.poll(5, TimeUnit.SECONDS);
    assertThat(state).as("a state within 5 s").isNotNull();
    return state;
  }

  private ConnectivityState nextState() throws InterruptedException {
    return next().getState();
  }

  private String nextServerEvent() throws InterruptedException {
    String event = serverEvents.poll(5, TimeUnit.SECONDS);
    assertThat(event).as("a server event within 5 s").isNotNull();
    return event;
  }

  @Test
  void readyOnlyWhileTheServerSaysServingAndTheWatchEndsWithTheConnection() throws Exception {
    start(health.getHealthService(), "", HOUR);
    connectionState(CONNECTING);
    assertThat(nextState()).isEqualTo(CONNECTING);
    connectionState(READY);
    assertThat(nextState()).isEqualTo(READY); // CONNECTING was already reported: not again
    assertThat(states).isEmpty();

    health.setStatus("", ServingStatus.NOT_SERVING);
    ConnectivityStateInfo failure = next();
    assertThat(failure.getState()).isEqualTo(TRANSIENT_FAILURE);
    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failure.getStatus().getDescription())
        .isEqualTo("health check of service '' at [/127.0.0.9:9]: the server says NOT_SERVING");
    health.setStatus("", ServingStatus.SERVING);
    assertThat(nextState()).isEqualTo(READY);

    connectionState(IDLE);
    assertThat(nextState()).isEqualTo(IDLE);
    assertThat(nextServerEvent()).isEqualTo("cancelled");
  }

  @Test
  void aNewServiceNameRestartsTheWatchAndNoNameStopsIt() throws Exception {
    health.setStatus("a.A", ServingStatus.SERVING);
    start(health.getHealthService(), "a.A", HOUR);
    connectionState(READY);
    assertThat(List.of(nextState(), nextState())).containsExactly(CONNECTING, READY);

    sync.execute(() -> subchannel.setServiceName("b.B"));
    assertThat(nextState()).isEqualTo(CONNECTING);
    assertThat(nextServerEvent()).isEqualTo("cancelled");
    ConnectivityStateInfo unknown = next();
    assertThat(unknown.getState()).isEqualTo(TRANSIENT_FAILURE);
    assertThat(unknown.getStatus().getDescription()).endsWith("the server says SERVICE_UNKNOWN");

    sync.execute(() -> subchannel.setServiceName(null));
    assertThat(nextState()).isEqualTo(READY);
    assertThat(nextServerEvent()).isEqualTo("cancelled");
  }

  @Test
  void aWatchThatEndsAfterAnsweringIsStartedAgainAtOnce() throws Exception {
    AtomicInteger watches = new AtomicInteger();
    BindableService endsOnce =
        new HealthTern.HealthImplBase() {
          @Override
          public void watch(
              HealthCheckRequest request, StreamObserver<HealthCheckResponse> responseObserver) {
            if (watches.incrementAndGet() == 1) {
              responseObserver.onNext(
                  HealthCheckResponse.newBuilder().setStatus(ServingStatus.SERVING).build());
              responseObserver.onCompleted();
            } else {
              ((HealthService) health.getHealthService()).watch(request, responseObserver);
            }
          }
        };
    start(endsOnce, "", HOUR); // a back-off of an hour: only an immediate retry passes
    connectionState(READY);
    assertThat(List.of(nextState(), nextState())).containsExactly(CONNECTING, READY);
    ConnectivityStateInfo ended = next();
    assertThat(ended.getState()).isEqualTo(TRANSIENT_FAILURE);
    assertThat(ended.getStatus().getDescription())
        .isEqualTo("health check of service '' at [/127.0.0.9:9] failed: OK");
    assertThat(List.of(nextState(), nextState())).containsExactly(CONNECTING, READY);
    assertThat(watches.get()).isEqualTo(2);
  }

  @Test
  void aWatchThatFailsWithoutAnsweringIsStartedAgainAfterTheBackoff() throws Exception {
    AtomicInteger watches = new AtomicInteger();
    BindableService failsTwice =
        new HealthTern.HealthImplBase() {
          @Override
          public void watch(
              HealthCheckRequest request, StreamObserver<HealthCheckResponse> responseObserver) {
            if (watches.incrementAndGet() <= 2) {
              responseObserver.onError(
                  Status.INTERNAL.withDescription("store down").asRuntimeException());
            } else {
              ((HealthService) health.getHealthService()).watch(request, responseObserver);
            }
          }
        };
    start(failsTwice, "", TimeUnit.MILLISECONDS.toNanos(10));
    connectionState(READY);
    assertThat(nextState()).isEqualTo(CONNECTING);
    ConnectivityStateInfo failed = next();
    assertThat(failed.getState()).isEqualTo(TRANSIENT_FAILURE);
    assertThat(failed.getStatus().getDescription())
        .isEqualTo("health check of service '' at [/127.0.0.9:9] failed: INTERNAL store down");
    assertThat(List.of(nextState(), nextState(), nextState(), nextState()))
        .containsExactly(CONNECTING, TRANSIENT_FAILURE, CONNECTING, READY);
    assertThat(watches.get()).isEqualTo(3);
  }

  @Test
  void aServerWithoutTheHealthServiceIsReadyAndLoggedOnce() throws Exception {
    LogCapture logs = new LogCapture(HealthCheckedSubchannel.class);
    try {
      start(null, "", HOUR);
      connectionState(READY);
      assertThat(List.of(nextState(), nextState())).containsExactly(CONNECTING, READY);
      connectionState(IDLE);
      assertThat(nextState()).isEqualTo(IDLE);
      connectionState(READY); // a new connection: tried again, not logged again
      assertThat(List.of(nextState(), nextState())).containsExactly(CONNECTING, READY);
    } finally {
      logs.close();
    }
    assertThat(logs.records()).hasSize(1);
    assertThat(logs.records().get(0).getParameters()[0]).isEqualTo("[/127.0.0.9:9]");
  }

  @Test
  void shutdownCancelsTheWatchAndOnlyShutdownIsReportedAfterIt() throws Exception {
    start(health.getHealthService(), "", HOUR);
    connectionState(READY);
    assertThat(List.of(nextState(), nextState())).containsExactly(CONNECTING, READY);

    inContext(subchannel::shutdown);
    assertThat(connection.shutdown).isTrue();
    assertThat(nextServerEvent()).isEqualTo("cancelled");
    connectionState(READY);
    connectionState(SHUTDOWN);
    assertThat(nextState()).isEqualTo(SHUTDOWN);
    assertThat(states).isEmpty();
  }

  @Test
  void picksOfTheWrappedBalancerGiveTheChannelsOwnSubchannel() throws Exception {
    start(health.getHealthService(), "", HOUR);
    LoadBalancer.PickSubchannelArgs args = null;
    HealthCheckingLoadBalancer.UnwrappingPicker picker =
        new HealthCheckingLoadBalancer.UnwrappingPicker(
            new LoadBalancer.FixedResultPicker(LoadBalancer.PickResult.withSubchannel(subchannel)));
    LoadBalancer.PickResult first = picker.pickSubchannel(args);
    assertThat(first.getSubchannel()).isSameAs(connection);
    assertThat(picker.pickSubchannel(args)).isSameAs(first); // nothing allocated per pick

    ClientStreamTracer.Factory tracers =
        new ClientStreamTracer.Factory() {
          @Override
          public ClientStreamTracer newClientStreamTracer(
              ClientStreamTracer.StreamInfo info, Metadata headers) {
            return null;
          }
        };
    LoadBalancer.PickResult traced =
        new HealthCheckingLoadBalancer.UnwrappingPicker(
                new LoadBalancer.FixedResultPicker(
                    LoadBalancer.PickResult.withSubchannel(subchannel, tracers)))
            .pickSubchannel(args);
    assertThat(traced.getSubchannel()).isSameAs(connection);
    assertThat(traced.getStreamTracerFactory()).isSameAs(tracers);

    LoadBalancer.PickResult error =
        LoadBalancer.PickResult.withError(Status.UNAVAILABLE.withDescription("down"));
    assertThat(
            new HealthCheckingLoadBalancer.UnwrappingPicker(
                    new LoadBalancer.FixedResultPicker(error))
                .pickSubchannel(args))
        .isSameAs(error);
  }

  /** The channel's subchannel, as far as the health check sees it: the test sets its state. */
  private static final class FakeConnection extends LoadBalancer.Subchannel {
    final Channel channel;
    LoadBalancer.SubchannelStateListener listener;
    volatile boolean shutdown;

    FakeConnection(Channel channel) {
      this.channel = channel;
    }

    @Override
    public void start(LoadBalancer.SubchannelStateListener listener) {
      this.listener = listener;
    }

    @Override
    public void shutdown() {
      shutdown = true;
    }

    @Override
    public void requestConnection() {}

    @Override
    public List<EquivalentAddressGroup> getAllAddresses() {
      return List.of(new EquivalentAddressGroup(new InetSocketAddress("127.0.0.9", 9)));
    }

    @Override
    public void updateAddresses(List<EquivalentAddressGroup> addresses) {}

    @Override
    public Attributes getAttributes() {
      return Attributes.EMPTY;
    }

    @Override
    public Channel asChannel() {
      return channel;
    }
  }
}
