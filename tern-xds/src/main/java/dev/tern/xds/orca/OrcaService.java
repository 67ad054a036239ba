package dev.tern.xds.orca;

import com.github.xds.data.orca.v3.OrcaLoadReport;
import com.github.xds.service.orca.v3.OpenRcaServiceTern;
import com.github.xds.service.orca.v3.OrcaLoadReportRequest;
import dev.tern.BindableService;
import dev.tern.ServerServiceDefinition;
import dev.tern.stub.ServerCallStreamObserver;
import dev.tern.stub.StreamObserver;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code xds.service.orca.v3.OpenRcaService} (gRFC A51's out-of-band reporting): each {@code
 * StreamCoreMetrics} stream gets the {@link MetricRecorder}'s values at once and then every {@code
 * report_interval} the client asked for, but never more often than the service's minimum interval
 * (30 s unless built otherwise); an unset or shorter interval gets the minimum. A report due while
 * the stream cannot take it (the client reads slowly) is skipped, so a slow client never queues
 * reports. The stream ends only when the client cancels it or the server shuts down.
 *
 * <p>Thread-safe; timers run on the scheduler given, which the application owns (the service never
 * shuts it down).
 */
public final class OrcaService implements BindableService {
  /** A51's default for the shortest interval a client may ask for. */
  public static final Duration DEFAULT_MIN_REPORT_INTERVAL = Duration.ofSeconds(30);

  private final MetricRecorder metrics;
  private final ScheduledExecutorService scheduler;
  private final long minIntervalNanos;

  private OrcaService(
      MetricRecorder metrics, ScheduledExecutorService scheduler, Duration minInterval) {
    this.metrics = metrics;
    this.scheduler = scheduler;
    this.minIntervalNanos = minInterval.toNanos();
  }

  /** A service reporting {@code metrics} with the default minimum interval. */
  public static OrcaService create(MetricRecorder metrics, ScheduledExecutorService scheduler) {
    return create(metrics, scheduler, DEFAULT_MIN_REPORT_INTERVAL);
  }

  /**
   * A service reporting {@code metrics} no more often than every {@code minReportInterval}.
   *
   * @throws IllegalArgumentException if an argument is null or the interval is not positive
   */
  public static OrcaService create(
      MetricRecorder metrics, ScheduledExecutorService scheduler, Duration minReportInterval) {
    if (metrics == null || scheduler == null || minReportInterval == null) {
      throw new IllegalArgumentException(
          "metrics, scheduler and minReportInterval: must not be null");
    }
    if (minReportInterval.isNegative() || minReportInterval.isZero()) {
      throw new IllegalArgumentException(
          "minReportInterval: must be positive, was " + minReportInterval);
    }
    return new OrcaService(metrics, scheduler, minReportInterval);
  }

  @Override
  public ServerServiceDefinition bindService() {
    return OpenRcaServiceTern.bindService(new Handler());
  }

  private long intervalNanos(OrcaLoadReportRequest request) {
    if (!request.hasReportInterval()) {
      return minIntervalNanos;
    }
    com.google.protobuf.Duration asked = request.getReportInterval();
    long seconds = Math.min(asked.getSeconds(), TimeUnit.DAYS.toSeconds(1));
    long nanos = TimeUnit.SECONDS.toNanos(Math.max(0, seconds)) + Math.max(0, asked.getNanos());
    return Math.max(nanos, minIntervalNanos);
  }

  private final class Handler implements OpenRcaServiceTern.AsyncService {
    @Override
    public void streamCoreMetrics(
        OrcaLoadReportRequest request, StreamObserver<OrcaLoadReport> responses) {
      ServerCallStreamObserver<OrcaLoadReport> stream =
          (ServerCallStreamObserver<OrcaLoadReport>) responses;
      Reporter reporter = new Reporter(stream);
      stream.setOnCancelHandler(reporter::stop);
      reporter.start(intervalNanos(request));
    }
  }

  /** One stream's timer. Thread-safe: the timer and the cancel handler race to it. */
  private final class Reporter implements Runnable {
    private final ServerCallStreamObserver<OrcaLoadReport> stream;
    private ScheduledFuture<?> timer;
    private boolean stopped;

    Reporter(ServerCallStreamObserver<OrcaLoadReport> stream) {
      this.stream = Objects.requireNonNull(stream, "stream");
    }

    synchronized void start(long intervalNanos) {
      if (stopped) {
        return;
      }
      // The timer first, so that the next report is one interval after this one even if the
      // client reads the first and the clock moves before this method returns.
      timer =
          scheduler.scheduleAtFixedRate(this, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
      run(); // the first report at once
    }

    @Override
    public synchronized void run() {
      if (stopped || stream.isCancelled()) {
        return;
      }
      if (stream.isReady()) {
        stream.onNext(metrics.snapshot().build());
      }
    }

    synchronized void stop() {
      stopped = true;
      if (timer != null) {
        timer.cancel(false);
      }
    }
  }
}
