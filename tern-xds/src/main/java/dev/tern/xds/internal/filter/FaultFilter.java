package dev.tern.xds.internal.filter;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.tern.ClientInterceptor;
import dev.tern.Status;
import io.envoyproxy.envoy.extensions.filters.common.fault.v3.FaultDelay;
import io.envoyproxy.envoy.extensions.filters.http.fault.v3.FaultAbort;
import io.envoyproxy.envoy.extensions.filters.http.fault.v3.HTTPFault;
import io.envoyproxy.envoy.type.v3.FractionalPercent;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code envoy.extensions.filters.http.fault.v3.HTTPFault} (A33): delays and aborts calls before
 * they send anything. Unset percentages are 0 (the proto's default). {@code upstream_cluster},
 * {@code headers}, {@code downstream_nodes}, the response rate limit and the runtime keys are not
 * supported (A33 defers or rejects them) and are ignored.
 */
final class FaultFilter implements ClientFilter {
  static final String TYPE_URL =
      "type.googleapis.com/envoy.extensions.filters.http.fault.v3.HTTPFault";

  /** The faults in progress in the whole process (A33's gauge for {@code max_active_faults}). */
  static final AtomicLong ACTIVE_FAULTS = new AtomicLong();

  @Override
  public Set<String> typeUrls() {
    return Set.of(TYPE_URL);
  }

  @Override
  public FilterConfig parse(Any config) throws FilterConfigException {
    HTTPFault fault;
    try {
      fault = HTTPFault.parseFrom(config.getValue());
    } catch (InvalidProtocolBufferException e) {
      throw new FilterConfigException("HTTPFault cannot be decoded: " + e.getMessage());
    }
    return parse(fault);
  }

  @Override
  public FilterConfig parseOverride(Any config) throws FilterConfigException {
    return parse(config);
  }

  static FaultConfig parse(HTTPFault fault) throws FilterConfigException {
    Duration fixedDelay = null;
    boolean headerDelay = false;
    Fraction delayFraction = null;
    if (fault.hasDelay()) {
      FaultDelay delay = fault.getDelay();
      switch (delay.getFaultDelaySecifierCase()) {
        case FIXED_DELAY -> fixedDelay = duration(delay.getFixedDelay(), "delay.fixed_delay");
        case HEADER_DELAY -> headerDelay = true;
        default ->
            throw new FilterConfigException("delay: neither fixed_delay nor header_delay is set");
      }
      delayFraction = fraction(delay.getPercentage(), "delay.percentage");
    }
    Status abortStatus = null;
    boolean headerAbort = false;
    Fraction abortFraction = null;
    if (fault.hasAbort()) {
      FaultAbort abort = fault.getAbort();
      switch (abort.getErrorTypeCase()) {
        case HTTP_STATUS -> {
          int http = abort.getHttpStatus();
          if (http < 200 || http >= 600) {
            throw new FilterConfigException(
                "abort.http_status: " + Integer.toUnsignedString(http) + " is not in [200, 600)");
          }
          abortStatus = injected(HttpStatuses.toGrpc(http), "HTTP status " + http);
        }
        case GRPC_STATUS -> {
          int code = abort.getGrpcStatus();
          if (code < 0 || code > 16) {
            throw new FilterConfigException(
                "abort.grpc_status: " + Integer.toUnsignedString(code) + " is not a gRPC code");
          }
          abortStatus = injected(Status.fromCodeValue(code).getCode(), null);
        }
        case HEADER_ABORT -> headerAbort = true;
        default ->
            throw new FilterConfigException(
                "abort: none of http_status, grpc_status and header_abort is set");
      }
      abortFraction = fraction(abort.getPercentage(), "abort.percentage");
    }
    Long max =
        fault.hasMaxActiveFaults()
            ? Integer.toUnsignedLong(fault.getMaxActiveFaults().getValue())
            : null;
    return new FaultConfig(
        fixedDelay, headerDelay, delayFraction, abortStatus, headerAbort, abortFraction, max);
  }

  /** The status an injected abort fails a call with; the description says where it came from. */
  static Status injected(Status.Code code, String detail) {
    return Status.fromCode(code)
        .withDescription(
            "injected by xDS fault injection" + (detail != null ? " (" + detail + ")" : ""));
  }

  private static Duration duration(com.google.protobuf.Duration d, String field)
      throws FilterConfigException {
    if (d.getSeconds() < 0 || d.getNanos() < 0 || d.getNanos() > 999_999_999) {
      throw new FilterConfigException(field + ": not a non-negative duration");
    }
    return Duration.ofSeconds(d.getSeconds(), d.getNanos());
  }

  private static Fraction fraction(FractionalPercent percent, String field)
      throws FilterConfigException {
    long numerator = Integer.toUnsignedLong(percent.getNumerator());
    return switch (percent.getDenominator()) {
      case HUNDRED -> new Fraction(numerator, 10_000);
      case TEN_THOUSAND -> new Fraction(numerator, 100);
      case MILLION -> new Fraction(numerator, 1);
      default ->
          throw new FilterConfigException(
              field + ".denominator: " + percent.getDenominatorValue() + " is not known");
    };
  }

  @Override
  public ClientInterceptor interceptor(
      FilterConfig config, FilterConfig override, FilterContext context) {
    FilterConfig effective = override instanceof FaultConfig ? override : config;
    if (!(effective instanceof FaultConfig fault) || !fault.injectsAnything()) {
      return null;
    }
    return new FaultInterceptor(fault, context, ACTIVE_FAULTS);
  }
}
