package dev.tern.xds.internal.filter;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Fault injection for the calls of one route (A33): as a call starts, draws (each with its own
 * random number) whether to delay it and whether to abort it, from the config or, for {@code
 * header_delay} / {@code header_abort}, from the request headers; no fault is injected while {@code
 * max_active_faults} faults are in progress. Thread-safe; made once per route update.
 */
final class FaultInterceptor implements ClientInterceptor {
  static final Metadata.Key<String> DELAY =
      Metadata.Key.of("x-envoy-fault-delay-request", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> DELAY_PERCENTAGE =
      Metadata.Key.of("x-envoy-fault-delay-request-percentage", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> ABORT_GRPC =
      Metadata.Key.of("x-envoy-fault-abort-grpc-request", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> ABORT_HTTP =
      Metadata.Key.of("x-envoy-fault-abort-request", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> ABORT_PERCENTAGE =
      Metadata.Key.of("x-envoy-fault-abort-request-percentage", Metadata.ASCII_STRING_MARSHALLER);

  /** A call's faults: a delay in nanoseconds (0 for none) and an abort status (null for none). */
  record Decision(long delayNanos, Status abort) {}

  private final FaultConfig config;
  private final FilterContext context;
  private final AtomicLong activeFaults;

  FaultInterceptor(FaultConfig config, FilterContext context, AtomicLong activeFaults) {
    this.config = config;
    this.context = context;
    this.activeFaults = activeFaults;
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
    return new FaultCall<>(this, method, callOptions, next, context.scheduler());
  }

  /**
   * The faults of a call with {@code headers}, or null for none. A non-null decision counts as an
   * active fault until {@link #finished} is called.
   */
  Decision decide(Metadata headers) {
    long delayNanos = 0;
    Fraction delayFraction = config.delayFraction();
    if (delayFraction != null) {
      if (config.headerDelay()) {
        long millis = number(headers.get(DELAY));
        if (millis >= 0 && draw(percentage(headers, DELAY_PERCENTAGE, delayFraction))) {
          delayNanos = TimeUnit.MILLISECONDS.toNanos(millis);
        }
      } else if (draw(delayFraction.perMillion())) {
        delayNanos = saturatedNanos(config.fixedDelay());
      }
    }
    Status abort = null;
    if (config.abortFraction() != null) {
      Status status = config.headerAbort() ? headerAbort(headers) : config.abortStatus();
      int perMillion =
          config.headerAbort()
              ? percentage(headers, ABORT_PERCENTAGE, config.abortFraction())
              : config.abortFraction().perMillion();
      if (status != null && draw(perMillion)) {
        abort = status;
      }
    }
    if (delayNanos == 0 && abort == null) {
      return null;
    }
    Long max = config.maxActiveFaults();
    while (true) {
      long active = activeFaults.get();
      if (max != null && active >= max) {
        return null;
      }
      if (activeFaults.compareAndSet(active, active + 1)) {
        return new Decision(delayNanos, abort);
      }
    }
  }

  /** A decided fault is over: its delay ended, or its call was aborted or cancelled. */
  void finished() {
    activeFaults.decrementAndGet();
  }

  private boolean draw(int perMillion) {
    return perMillion > 0
        && (perMillion >= Fraction.MILLION
            || context.random().applyAsLong(Fraction.MILLION) < perMillion);
  }

  private static long saturatedNanos(java.time.Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  /** A percentage header's share, capped by the config's; the config's when absent or invalid. */
  private static int percentage(Metadata headers, Metadata.Key<String> key, Fraction configured) {
    long n = number(headers.get(key));
    return n < 0 ? configured.perMillion() : configured.cappedBy(n);
  }

  private static Status headerAbort(Metadata headers) {
    long grpc = number(headers.get(ABORT_GRPC));
    if (grpc >= 0 && grpc <= 16) {
      return FaultFilter.injected(
          Status.fromCodeValue((int) grpc).getCode(), "x-envoy-fault-abort-grpc-request");
    }
    long http = number(headers.get(ABORT_HTTP));
    if (http >= 200 && http < 600) {
      return FaultFilter.injected(
          HttpStatuses.toGrpc((int) http), "x-envoy-fault-abort-request " + http);
    }
    return null; // absent or invalid headers are ignored (A33)
  }

  /** A header's non-negative integer value, or -1 when it is absent or not one. */
  private static long number(String value) {
    if (value == null || value.isEmpty() || value.length() > 18) {
      return -1;
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
    }
    return Long.parseLong(value);
  }

  @Override
  public String toString() {
    return "FaultInterceptor{" + config + "}";
  }
}
