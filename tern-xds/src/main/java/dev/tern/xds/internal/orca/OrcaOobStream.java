package dev.tern.xds.internal.orca;

import com.github.xds.data.orca.v3.OrcaLoadReport;
import com.github.xds.service.orca.v3.OpenRcaServiceTern;
import com.github.xds.service.orca.v3.OrcaLoadReportRequest;
import com.google.protobuf.Duration;
import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.LoadBalancer.Subchannel;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One subchannel's out-of-band load reports (gRFC A51): while the subchannel is READY, one {@code
 * OpenRcaService/StreamCoreMetrics} stream on it asking for a report every {@code interval}; each
 * report goes to the listener. A stream that ends is opened again: at once if it had brought a
 * report, else after an exponential back-off (1 s growing by 1.6 to 2 min, ±20%). A backend that
 * answers UNIMPLEMENTED does not serve ORCA: no stream is opened again until the subchannel
 * reconnects. Reports are asked for one at a time, so a backend cannot queue them up in the client.
 *
 * <p>Not thread-safe: every method runs in the channel's synchronization context, where the call's
 * events are brought too.
 */
public final class OrcaOobStream {
  private static final Logger logger = Logger.getLogger(OrcaOobStream.class.getName());
  static final long INITIAL_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);
  static final long MAX_BACKOFF_NANOS = TimeUnit.MINUTES.toNanos(2);

  private final Subchannel subchannel;
  private final SynchronizationContext syncContext;
  private final ScheduledExecutorService scheduler;
  private final OrcaReportListener listener;
  private long intervalNanos;
  private boolean ready;
  private boolean unimplemented;
  private boolean shutdown;
  private ClientCall<OrcaLoadReportRequest, OrcaLoadReport> call;
  private SynchronizationContext.ScheduledHandle retry;
  private long nextBackoffNanos = INITIAL_BACKOFF_NANOS;

  public OrcaOobStream(
      Subchannel subchannel,
      SynchronizationContext syncContext,
      ScheduledExecutorService scheduler,
      long intervalNanos,
      OrcaReportListener listener) {
    this.subchannel = subchannel;
    this.syncContext = syncContext;
    this.scheduler = scheduler;
    this.intervalNanos = intervalNanos;
    this.listener = listener;
  }

  /** The subchannel became READY (starts a stream) or left READY (ends it). */
  public void setReady(boolean ready) {
    if (shutdown || ready == this.ready) {
      return;
    }
    this.ready = ready;
    if (ready) {
      unimplemented = false;
      nextBackoffNanos = INITIAL_BACKOFF_NANOS;
      start();
    } else {
      stop();
    }
  }

  /** A new reporting interval: a running stream is replaced by one asking for it. */
  public void setInterval(long intervalNanos) {
    if (intervalNanos == this.intervalNanos) {
      return;
    }
    this.intervalNanos = intervalNanos;
    if (call != null) {
      stop();
      start();
    }
  }

  /** Ends the stream for good. */
  public void shutdown() {
    shutdown = true;
    stop();
  }

  /** Whether a stream is open now (for tests and logs). */
  public boolean isStreaming() {
    return call != null;
  }

  private void start() {
    if (shutdown || !ready || unimplemented || call != null || retry != null) {
      return;
    }
    Channel channel;
    try {
      channel = subchannel.asChannel();
    } catch (UnsupportedOperationException e) {
      unimplemented = true; // a subchannel not made by a channel: no stream can be opened on it
      logger.log(
          Level.FINE, "no out-of-band ORCA stream on {0}: {1}", new Object[] {subchannel, e});
      return;
    }
    ClientCall<OrcaLoadReportRequest, OrcaLoadReport> started =
        channel.newCall(OpenRcaServiceTern.getStreamCoreMetricsMethod(), CallOptions.DEFAULT);
    call = started;
    Responses responses = new Responses(started);
    started.start(responses, new Metadata());
    started.sendMessage(
        OrcaLoadReportRequest.newBuilder()
            .setReportInterval(
                Duration.newBuilder()
                    .setSeconds(intervalNanos / 1_000_000_000L)
                    .setNanos((int) (intervalNanos % 1_000_000_000L)))
            .build());
    started.halfClose();
    started.request(1);
  }

  private void stop() {
    if (retry != null) {
      retry.cancel();
      retry = null;
    }
    if (call != null) {
      ClientCall<?, ?> ending = call;
      call = null;
      ending.cancel("ORCA stream no longer needed", null);
    }
  }

  private void onClosed(ClientCall<?, ?> closed, Status status, boolean gotReport) {
    if (closed != call) {
      return; // a stream this one already replaced or stopped
    }
    call = null;
    if (status.getCode() == Status.Code.UNIMPLEMENTED) {
      unimplemented = true;
      logger.log(
          Level.FINE,
          "backend {0} does not serve ORCA: {1}",
          new Object[] {subchannel.getAllAddresses(), status});
      return;
    }
    if (gotReport) {
      nextBackoffNanos = INITIAL_BACKOFF_NANOS;
      start();
      return;
    }
    long delay = nextBackoffNanos;
    nextBackoffNanos = (long) Math.min(delay * 1.6, MAX_BACKOFF_NANOS);
    delay = (long) (delay * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble()));
    retry = syncContext.schedule(this::retry, delay, TimeUnit.NANOSECONDS, scheduler);
  }

  private void retry() {
    retry = null;
    start();
  }

  /** One stream's events, brought into the synchronization context. */
  private final class Responses extends ClientCall.Listener<OrcaLoadReport> {
    private final ClientCall<OrcaLoadReportRequest, OrcaLoadReport> owner;
    private boolean gotReport;

    Responses(ClientCall<OrcaLoadReportRequest, OrcaLoadReport> owner) {
      this.owner = owner;
    }

    @Override
    public void onMessage(OrcaLoadReport report) {
      syncContext.execute(
          () -> {
            if (owner != call) {
              return;
            }
            gotReport = true;
            listener.onLoadReport(report);
            owner.request(1);
          });
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      syncContext.execute(() -> onClosed(owner, status, gotReport));
    }
  }
}
