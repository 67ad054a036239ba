package dev.tern.xds.internal.lb;

import dev.tern.ClientStreamTracer;
import dev.tern.ConnectivityState;
import dev.tern.ConnectivityStateInfo;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.xds.internal.orca.OrcaOobStream;
import dev.tern.xds.internal.orca.OrcaPerCallTracer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * {@code weighted_round_robin} (gRFC A58): one subchannel per endpoint, connected at once and kept
 * connected (as round_robin); calls go to the READY ones in proportion to weights learnt from the
 * endpoints' ORCA load reports (A51): per call, from each call's trailer, or with {@code
 * enableOobLoadReport} from one out-of-band stream per endpoint asking for a report every {@code
 * oobReportingPeriod}. Every {@code weightUpdatePeriod} (on the helper's scheduler) the picker's
 * scheduler is rebuilt from the weights ({@link EndpointWeight}: blackout, expiry; endpoints
 * without one get the mean). State: READY if an endpoint is, else CONNECTING if one is connecting
 * or idle, else TRANSIENT_FAILURE with the last error.
 *
 * <p>Not thread-safe: runs in the channel's synchronization context; its pickers and the weights
 * are thread-safe.
 */
final class WeightedRoundRobinBalancer extends LoadBalancer {
  private final Helper helper;
  private final LongSupplier nanoTime;
  private final WeightedRoundRobinMetrics metrics;
  private final Map<EquivalentAddressGroup, Endpoint> endpoints = new LinkedHashMap<>();
  private WeightedRoundRobinConfig config = WeightedRoundRobinConfig.DEFAULT;
  private WeightedRoundRobinPicker picker;
  private SynchronizationContext.ScheduledHandle updateTimer;
  private Status lastError = Status.UNAVAILABLE.withDescription("no endpoint has connected yet");

  /** One endpoint: its subchannel, state, weight and report sources. */
  final class Endpoint {
    final Subchannel subchannel;
    final EndpointWeight weight;
    final ClientStreamTracer.Factory perCallReports;
    final OrcaOobStream oob;
    ConnectivityState state = ConnectivityState.IDLE;

    Endpoint(Subchannel subchannel) {
      this.subchannel = subchannel;
      this.weight = new EndpointWeight(nanoTime, config);
      this.perCallReports = OrcaPerCallTracer.factory(weight);
      this.oob =
          new OrcaOobStream(
              subchannel,
              helper.getSynchronizationContext(),
              helper.getScheduledExecutorService(),
              config.oobReportingPeriodNanos(),
              weight);
    }
  }

  WeightedRoundRobinBalancer(Helper helper, LongSupplier nanoTime) {
    this.helper = helper;
    this.nanoTime = nanoTime;
    this.metrics = new WeightedRoundRobinMetrics(helper.getMetricRecorder());
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
    Object parsed = resolved.getLoadBalancingPolicyConfig();
    config = parsed instanceof WeightedRoundRobinConfig c ? c : WeightedRoundRobinConfig.DEFAULT;
    Map<EquivalentAddressGroup, Endpoint> kept = new LinkedHashMap<>();
    if (!resolved.getAddresses().isEmpty()) {
      metrics.setLabelsFrom(resolved.getAddresses().get(0).getAttributes());
    }
    for (EquivalentAddressGroup group : resolved.getAddresses()) {
      EquivalentAddressGroup key = new EquivalentAddressGroup(group.getAddresses());
      if (kept.containsKey(key)) {
        continue;
      }
      Endpoint endpoint = endpoints.remove(key);
      if (endpoint == null) {
        Subchannel subchannel =
            helper.createSubchannel(
                CreateSubchannelArgs.newBuilder()
                    .setAddresses(group)
                    .setAttributes(group.getAttributes())
                    .build());
        Endpoint created = new Endpoint(subchannel);
        subchannel.start(info -> onSubchannelState(created, info));
        subchannel.requestConnection();
        endpoint = created;
      }
      endpoint.weight.setConfig(config);
      endpoint.oob.setInterval(config.oobReportingPeriodNanos());
      endpoint.oob.setReady(
          config.enableOobLoadReport() && endpoint.state == ConnectivityState.READY);
      kept.put(key, endpoint);
    }
    for (Endpoint removed : endpoints.values()) {
      shutdown(removed);
    }
    endpoints.clear();
    endpoints.putAll(kept);
    if (endpoints.isEmpty()) {
      cancelTimer();
      picker = null;
      Status error = Status.UNAVAILABLE.withDescription("weighted_round_robin: no endpoints");
      helper.updateBalancingState(
          ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(error)));
      return error;
    }
    restartTimer();
    publish();
    return Status.OK;
  }

  @Override
  public void handleNameResolutionError(Status error) {
    if (endpoints.isEmpty()) {
      helper.updateBalancingState(
          ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(error)));
    }
  }

  @Override
  public void shutdown() {
    cancelTimer();
    for (Endpoint endpoint : endpoints.values()) {
      shutdown(endpoint);
    }
    endpoints.clear();
    picker = null;
  }

  private static void shutdown(Endpoint endpoint) {
    endpoint.oob.shutdown();
    endpoint.subchannel.shutdown();
  }

  private void onSubchannelState(Endpoint endpoint, ConnectivityStateInfo info) {
    if (!endpoints.containsValue(endpoint) || info.getState() == ConnectivityState.SHUTDOWN) {
      return;
    }
    ConnectivityState previous = endpoint.state;
    endpoint.state = info.getState();
    switch (info.getState()) {
      case READY -> {
        if (previous != ConnectivityState.READY) {
          endpoint.weight.reset(); // a new connection: a new blackout period (A58)
        }
      }
      case TRANSIENT_FAILURE -> {
        lastError = info.getStatus();
        helper.refreshNameResolution();
      }
      case IDLE -> {
        if (previous == ConnectivityState.READY) {
          helper.refreshNameResolution();
        }
        endpoint.subchannel.requestConnection(); // keep every endpoint connected, as round_robin
      }
      default -> {}
    }
    endpoint.oob.setReady(
        config.enableOobLoadReport() && endpoint.state == ConnectivityState.READY);
    publish();
  }

  private void publish() {
    List<Endpoint> ready = new ArrayList<>();
    boolean connecting = false;
    for (Endpoint endpoint : endpoints.values()) {
      switch (endpoint.state) {
        case READY -> ready.add(endpoint);
        case CONNECTING, IDLE -> connecting = true;
        default -> {}
      }
    }
    if (!ready.isEmpty()) {
      picker = new WeightedRoundRobinPicker(ready, !config.enableOobLoadReport(), metrics);
      helper.updateBalancingState(ConnectivityState.READY, picker);
      return;
    }
    picker = null;
    if (connecting) {
      helper.updateBalancingState(
          ConnectivityState.CONNECTING, new FixedResultPicker(PickResult.withNoResult()));
    } else {
      helper.updateBalancingState(
          ConnectivityState.TRANSIENT_FAILURE,
          new FixedResultPicker(PickResult.withError(lastError)));
    }
  }

  private void restartTimer() {
    cancelTimer();
    scheduleUpdate();
  }

  private void scheduleUpdate() {
    updateTimer =
        helper
            .getSynchronizationContext()
            .schedule(
                this::updateWeights,
                config.weightUpdatePeriodNanos(),
                TimeUnit.NANOSECONDS,
                helper.getScheduledExecutorService());
  }

  private void updateWeights() {
    if (picker != null) {
      picker.updateWeights();
    }
    scheduleUpdate();
  }

  private void cancelTimer() {
    if (updateTimer != null) {
      updateTimer.cancel();
      updateTimer = null;
    }
  }
}
