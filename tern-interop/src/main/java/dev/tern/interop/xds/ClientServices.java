package dev.tern.interop.xds;

import dev.tern.Status;
import dev.tern.interop.testing.ClientConfigureRequest;
import dev.tern.interop.testing.ClientConfigureResponse;
import dev.tern.interop.testing.LoadBalancerAccumulatedStatsRequest;
import dev.tern.interop.testing.LoadBalancerAccumulatedStatsResponse;
import dev.tern.interop.testing.LoadBalancerStatsRequest;
import dev.tern.interop.testing.LoadBalancerStatsResponse;
import dev.tern.interop.testing.LoadBalancerStatsServiceTern;
import dev.tern.interop.testing.XdsUpdateClientConfigureServiceTern;
import dev.tern.stub.StreamObserver;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** The services the xDS test client serves on its {@code --stats_port}. */
final class ClientServices {
  private ClientServices() {}

  /**
   * {@code LoadBalancerStatsService}: the peers of the next {@code num_rpcs} RPCs sent (partial
   * after {@code timeout_sec}), and every RPC's outcome by type. Thread-safe.
   */
  static final class Stats extends LoadBalancerStatsServiceTern.LoadBalancerStatsServiceImplBase {
    private final ClientStats stats;
    private final ScheduledExecutorService scheduler;

    Stats(ClientStats stats, ScheduledExecutorService scheduler) {
      this.stats = stats;
      this.scheduler = scheduler;
    }

    @Override
    public void getClientStats(
        LoadBalancerStatsRequest request,
        StreamObserver<LoadBalancerStatsResponse> responseObserver) {
      if (request.getNumRpcs() < 0 || request.getTimeoutSec() < 0) {
        responseObserver.onError(
            Status.INVALID_ARGUMENT
                .withDescription("num_rpcs and timeout_sec must not be negative")
                .asRuntimeException());
        return;
      }
      StatsWatcher watcher = stats.watch(request.getNumRpcs());
      ScheduledFuture<?> timeout =
          scheduler.schedule(watcher::finish, request.getTimeoutSec(), TimeUnit.SECONDS);
      watcher
          .result()
          .thenAccept(
              response -> {
                timeout.cancel(false);
                stats.unwatch(watcher);
                responseObserver.onNext(response);
                responseObserver.onCompleted();
              });
    }

    @Override
    public void getClientAccumulatedStats(
        LoadBalancerAccumulatedStatsRequest request,
        StreamObserver<LoadBalancerAccumulatedStatsResponse> responseObserver) {
      responseObserver.onNext(stats.accumulated());
      responseObserver.onCompleted();
    }
  }

  /**
   * {@code XdsUpdateClientConfigureService}: replaces what the client sends from its next tick on.
   * Thread-safe.
   */
  static final class Configure
      extends XdsUpdateClientConfigureServiceTern.XdsUpdateClientConfigureServiceImplBase {
    private final AtomicReference<ClientConfig> config;
    private final int defaultTimeoutSec;

    Configure(AtomicReference<ClientConfig> config, int defaultTimeoutSec) {
      this.config = config;
      this.defaultTimeoutSec = defaultTimeoutSec;
    }

    @Override
    public void configure(
        ClientConfigureRequest request, StreamObserver<ClientConfigureResponse> responseObserver) {
      try {
        config.set(ClientConfig.from(request, defaultTimeoutSec));
      } catch (IllegalArgumentException e) {
        responseObserver.onError(
            Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
        return;
      }
      responseObserver.onNext(ClientConfigureResponse.getDefaultInstance());
      responseObserver.onCompleted();
    }
  }
}
