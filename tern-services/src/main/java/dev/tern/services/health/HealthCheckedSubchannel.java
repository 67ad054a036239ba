package dev.tern.services.health;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ConnectivityState;
import dev.tern.ConnectivityStateInfo;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer.PickResult;
import dev.tern.LoadBalancer.Subchannel;
import dev.tern.LoadBalancer.SubchannelStateListener;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.services.health.v1.HealthCheckRequest;
import dev.tern.services.health.v1.HealthCheckResponse;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.services.health.v1.HealthTern;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A subchannel whose READY means "connected and its server says SERVING" (gRFC A17). It wraps the
 * channel's subchannel: while that one is READY and a service name is configured, a {@code
 * grpc.health.v1.Health/Watch} call runs on its connection, and the balancer hears
 *
 * <ul>
 *   <li>CONNECTING until the first answer (and while a new Watch starts after a failed one);
 *   <li>READY for SERVING, TRANSIENT_FAILURE for any other status, naming it;
 *   <li>TRANSIENT_FAILURE when the Watch fails; it is started again after an exponential back-off
 *       (1 s, times 1.6 per failure, up to 120 s, ±20%), or at once if the failed call had answered
 *       (that resets the back-off);
 *   <li>READY for good on this connection if the server does not implement the health service
 *       (UNIMPLEMENTED): logged once per subchannel;
 *   <li>every other state of the connection as it is: the Watch is cancelled when the connection
 *       leaves READY or the subchannel shuts down.
 * </ul>
 *
 * <p>Thread-safety: everything runs in the channel's synchronization context; the Watch call's
 * callbacks hop into it and are ignored once that call is no longer the current one.
 */
final class HealthCheckedSubchannel extends Subchannel {
  private static final Logger logger = Logger.getLogger(HealthCheckedSubchannel.class.getName());

  /** Back-off between failed Watch calls: gRPC's connection back-off parameters. */
  static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(120);

  private static final double BACKOFF_MULTIPLIER = 1.6;
  private static final double BACKOFF_JITTER = 0.2;

  private final Subchannel delegate;
  private final SynchronizationContext sync;
  private final ScheduledExecutorService timer;
  private final long initialBackoffNanos;
  private final PickResult pick;

  private SubchannelStateListener listener;
  private String serviceName;
  private ConnectivityStateInfo raw = ConnectivityStateInfo.forNonError(ConnectivityState.IDLE);
  private ConnectivityStateInfo reported;
  private Watch watch;
  private SynchronizationContext.ScheduledHandle retry;
  private long nextBackoffNanos;
  private boolean unimplemented; // for the current connection
  private boolean unimplementedLogged;
  private boolean shutdown;
  private Runnable onShutdown = () -> {};

  HealthCheckedSubchannel(
      Subchannel delegate,
      SynchronizationContext sync,
      ScheduledExecutorService timer,
      long initialBackoffNanos,
      String serviceName) {
    this.delegate = delegate;
    this.sync = sync;
    this.timer = timer;
    this.initialBackoffNanos = initialBackoffNanos;
    this.nextBackoffNanos = initialBackoffNanos;
    this.serviceName = serviceName;
    this.pick = PickResult.withSubchannel(delegate);
  }

  /** The channel's subchannel underneath. */
  Subchannel delegate() {
    return delegate;
  }

  /** The pick of the channel's subchannel, made once so that picking allocates nothing. */
  PickResult pick() {
    return pick;
  }

  /** Watches {@code name} from now on (null: no health checking). */
  void setServiceName(String name) {
    if (Objects.equals(name, serviceName)) {
      return;
    }
    serviceName = name;
    if (listener != null && raw.getState() == ConnectivityState.READY) {
      stopWatch();
      nextBackoffNanos = initialBackoffNanos;
      connectionReady();
    }
  }

  @Override
  public void start(SubchannelStateListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
    delegate.start(this::onConnectionState);
  }

  /** Runs {@code task} when the balancer shuts this subchannel down. */
  void onShutdown(Runnable task) {
    onShutdown = task;
  }

  @Override
  public void shutdown() {
    if (!shutdown) {
      shutdown = true;
      stopWatch();
      onShutdown.run();
    }
    delegate.shutdown();
  }

  @Override
  public void requestConnection() {
    delegate.requestConnection();
  }

  @Override
  public List<EquivalentAddressGroup> getAllAddresses() {
    return delegate.getAllAddresses();
  }

  @Override
  public void updateAddresses(List<EquivalentAddressGroup> addresses) {
    delegate.updateAddresses(addresses);
  }

  @Override
  public Attributes getAttributes() {
    return delegate.getAttributes();
  }

  @Override
  public Channel asChannel() {
    return delegate.asChannel();
  }

  @Override
  public String toString() {
    return "HealthChecked" + delegate;
  }

  private void onConnectionState(ConnectivityStateInfo state) {
    raw = state;
    if (state.getState() == ConnectivityState.READY) {
      unimplemented = false;
      nextBackoffNanos = initialBackoffNanos;
      connectionReady();
    } else {
      stopWatch();
      report(state);
    }
  }

  /** The connection is READY: watch its health, or pass READY on if there is nothing to watch. */
  private void connectionReady() {
    if (serviceName == null || unimplemented || shutdown) {
      report(raw);
      return;
    }
    startWatch();
  }

  private void startWatch() {
    report(ConnectivityStateInfo.forNonError(ConnectivityState.CONNECTING));
    Watch started = new Watch(serviceName);
    watch = started;
    started.start();
  }

  private void stopWatch() {
    if (retry != null) {
      retry.cancel();
      retry = null;
    }
    if (watch != null) {
      Watch stopped = watch;
      watch = null;
      stopped.call.cancel("health check no longer needed", null);
    }
  }

  private void onHealth(Watch from, ServingStatus status) {
    if (from != watch) {
      return;
    }
    from.answered = true;
    if (status == ServingStatus.SERVING) {
      report(ConnectivityStateInfo.forNonError(ConnectivityState.READY));
    } else {
      report(
          ConnectivityStateInfo.forTransientFailure(
              Status.UNAVAILABLE.withDescription(
                  "health check of service '"
                      + from.service
                      + "' at "
                      + addresses()
                      + ": the server says "
                      + status)));
    }
  }

  private void onWatchClosed(Watch from, Status status) {
    if (from != watch) {
      return;
    }
    watch = null;
    if (status.getCode() == Status.Code.UNIMPLEMENTED) {
      unimplemented = true;
      if (!unimplementedLogged) {
        unimplementedLogged = true;
        logger.log(
            Level.WARNING,
            "The server at {0} does not implement grpc.health.v1.Health: health checking of it is"
                + " off and it counts as healthy ({1})",
            new Object[] {addresses(), status});
      }
      report(raw);
      return;
    }
    report(
        ConnectivityStateInfo.forTransientFailure(
            Status.UNAVAILABLE
                .withDescription(
                    "health check of service '"
                        + from.service
                        + "' at "
                        + addresses()
                        + " failed: "
                        + status.getCode()
                        + (status.getDescription() != null ? " " + status.getDescription() : ""))
                .withCause(status.getCause())));
    long delay;
    if (from.answered) {
      nextBackoffNanos = initialBackoffNanos;
      delay = 0;
    } else {
      delay = jittered(nextBackoffNanos);
      nextBackoffNanos =
          Math.min(MAX_BACKOFF_NANOS, (long) (nextBackoffNanos * BACKOFF_MULTIPLIER));
    }
    retry =
        sync.schedule(
            () -> {
              retry = null;
              if (!shutdown && watch == null && raw.getState() == ConnectivityState.READY) {
                connectionReady();
              }
            },
            delay,
            TimeUnit.NANOSECONDS,
            timer);
  }

  private static long jittered(long nanos) {
    double factor = 1 + BACKOFF_JITTER * (2 * ThreadLocalRandom.current().nextDouble() - 1);
    return (long) (nanos * factor);
  }

  private void report(ConnectivityStateInfo state) {
    if (shutdown && state.getState() != ConnectivityState.SHUTDOWN) {
      return;
    }
    if (state.equals(reported) && state.getState() != ConnectivityState.TRANSIENT_FAILURE) {
      return;
    }
    reported = state;
    listener.onSubchannelState(state);
  }

  private String addresses() {
    List<EquivalentAddressGroup> all = delegate.getAllAddresses();
    return all.size() == 1 ? all.get(0).getAddresses().toString() : all.toString();
  }

  /** One Watch call on the subchannel's connection. */
  private final class Watch extends ClientCall.Listener<HealthCheckResponse> {
    final String service;
    final ClientCall<HealthCheckRequest, HealthCheckResponse> call;

    /** Whether the server answered on this call (confined to the synchronization context). */
    boolean answered;

    Watch(String service) {
      this.service = service;
      this.call = delegate.asChannel().newCall(HealthTern.getWatchMethod(), CallOptions.DEFAULT);
    }

    void start() {
      call.start(this, new Metadata());
      call.sendMessage(HealthCheckRequest.newBuilder().setService(service).build());
      call.halfClose();
      call.request(1);
    }

    @Override
    public void onMessage(HealthCheckResponse message) {
      ServingStatus status = message.getStatus();
      sync.execute(
          () -> {
            onHealth(this, status);
            if (watch == this) {
              call.request(1);
            }
          });
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      sync.execute(() -> onWatchClosed(this, status));
    }
  }
}
