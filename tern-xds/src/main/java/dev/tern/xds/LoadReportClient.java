package dev.tern.xds;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.xds.internal.lrs.LoadStatsRegistry;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.load_stats.v3.LoadReportingServiceTern;
import io.envoyproxy.envoy.service.load_stats.v3.LoadStatsRequest;
import io.envoyproxy.envoy.service.load_stats.v3.LoadStatsResponse;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The load-report stream (LRS, gRFC A27) to one control plane: {@code StreamLoadStats} on the same
 * channel as the ADS stream, open while some cluster reports load ({@link #update}). The first
 * request carries the node; each response says which clusters to report ({@code clusters} or {@code
 * send_all_clusters}) and how often ({@code load_reporting_interval}), and from then on a report
 * goes out at that interval with the load since the last one. A stream that ends is opened again,
 * at once after one that received a response, else after an exponential back-off.
 *
 * <p>Not thread-safe: every method runs in the xDS client's synchronization context, into which the
 * call's callbacks hop.
 */
final class LoadReportClient {
  private static final Logger logger = Logger.getLogger(LoadReportClient.class.getName());

  /** The shortest report interval honoured: a server asking for 0 would make a busy loop. */
  static final Duration MIN_INTERVAL = Duration.ofMillis(100);

  private final Channel channel;
  private final String serverUri;
  private final SynchronizationContext syncContext;
  private final ScheduledExecutorService timer;
  private final Node node;
  private final Backoff backoff;
  private final LoadStatsRegistry registry;
  private Stream stream;
  private SynchronizationContext.ScheduledHandle retry;
  private boolean shutdown;

  LoadReportClient(
      Channel channel,
      String serverUri,
      SynchronizationContext syncContext,
      ScheduledExecutorService timer,
      Node node,
      Backoff backoff,
      LoadStatsRegistry registry) {
    this.channel = channel;
    this.serverUri = serverUri;
    this.syncContext = syncContext;
    this.timer = timer;
    this.node = node.toBuilder().addClientFeatures("envoy.lrs.supports_send_all_clusters").build();
    this.backoff = backoff;
    this.registry = registry;
  }

  /** Opens the stream if some cluster reports load and it is not open; closes it if none does. */
  void update() {
    if (shutdown) {
      return;
    }
    if (registry.isEmpty()) {
      stop();
    } else if (stream == null && (retry == null || !retry.isPending())) {
      stream = new Stream();
      stream.start();
    }
  }

  void shutdown() {
    shutdown = true;
    stop();
  }

  private void stop() {
    if (retry != null) {
      retry.cancel();
      retry = null;
    }
    if (stream != null) {
      stream.close("no cluster reports load");
      stream = null;
    }
    backoff.reset();
  }

  /** One {@code StreamLoadStats} call and its report timer. */
  private final class Stream {
    private final ClientCall<LoadStatsRequest, LoadStatsResponse> call =
        channel.newCall(LoadReportingServiceTern.getStreamLoadStatsMethod(), CallOptions.DEFAULT);
    private SynchronizationContext.ScheduledHandle nextReport;
    private Set<String> clusters = Set.of();
    private boolean sendAll;
    private long intervalNanos;
    private boolean receivedResponse;
    private boolean closed;

    void start() {
      call.start(
          new ClientCall.Listener<>() {
            @Override
            public void onMessage(LoadStatsResponse response) {
              syncContext.execute(() -> onResponse(response));
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
              syncContext.execute(() -> onClosed(status));
            }
          },
          new Metadata());
      call.request(1);
      call.sendMessage(LoadStatsRequest.newBuilder().setNode(node).build());
    }

    private void onResponse(LoadStatsResponse response) {
      if (closed) {
        return;
      }
      receivedResponse = true;
      sendAll = response.getSendAllClusters();
      clusters = Set.copyOf(response.getClustersList());
      com.google.protobuf.Duration asked = response.getLoadReportingInterval();
      // Saturates a huge interval instead of overflowing; a negative or tiny one is raised.
      intervalNanos =
          Math.max(
              MIN_INTERVAL.toNanos(),
              Duration.ofSeconds(Math.min(asked.getSeconds(), 1L << 32), asked.getNanos())
                  .toNanos());
      if (nextReport != null) {
        nextReport.cancel();
      }
      scheduleReport();
      call.request(1);
    }

    private void scheduleReport() {
      nextReport = syncContext.schedule(this::report, intervalNanos, TimeUnit.NANOSECONDS, timer);
    }

    private void report() {
      if (closed) {
        return;
      }
      call.sendMessage(
          LoadStatsRequest.newBuilder()
              .addAllClusterStats(registry.report(sendAll ? null : clusters))
              .build());
      scheduleReport();
    }

    private void onClosed(Status status) {
      if (closed) {
        return;
      }
      closed = true;
      cancelReport();
      if (stream != this || shutdown) {
        return;
      }
      stream = null;
      long delay;
      if (receivedResponse) {
        backoff.reset();
        delay = 0;
      } else {
        delay = backoff.nextDelayNanos();
      }
      logger.log(
          Level.WARNING,
          "LRS stream to {0} closed: {1}; reconnecting in {2} ms",
          new Object[] {serverUri, status, TimeUnit.NANOSECONDS.toMillis(delay)});
      retry =
          syncContext.schedule(LoadReportClient.this::update, delay, TimeUnit.NANOSECONDS, timer);
    }

    void close(String why) {
      if (!closed) {
        closed = true;
        cancelReport();
        call.cancel(why, null);
      }
    }

    private void cancelReport() {
      if (nextReport != null) {
        nextReport.cancel();
        nextReport = null;
      }
    }
  }
}
