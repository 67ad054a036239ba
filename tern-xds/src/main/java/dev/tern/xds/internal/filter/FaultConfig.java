package dev.tern.xds.internal.filter;

import dev.tern.Status;
import java.time.Duration;

/**
 * A parsed {@code envoy.extensions.filters.http.fault.v3.HTTPFault} (A33). Immutable.
 *
 * @param fixedDelay the delay of {@code fixed_delay}, or null
 * @param headerDelay {@code header_delay}: the {@code x-envoy-fault-delay-request} header says
 * @param delayFraction the share of calls delayed, or null when there is no delay
 * @param abortStatus the status of {@code grpc_status} or the mapped {@code http_status}, or null
 * @param headerAbort {@code header_abort}: the {@code x-envoy-fault-abort-*} headers say
 * @param abortFraction the share of calls aborted, or null when there is no abort
 * @param maxActiveFaults {@code max_active_faults}, or null for no limit
 */
record FaultConfig(
    Duration fixedDelay,
    boolean headerDelay,
    Fraction delayFraction,
    Status abortStatus,
    boolean headerAbort,
    Fraction abortFraction,
    Long maxActiveFaults)
    implements FilterConfig {
  @Override
  public String typeUrl() {
    return FaultFilter.TYPE_URL;
  }

  /** Whether calls can be delayed or aborted at all. */
  boolean injectsAnything() {
    return (delayFraction != null && delayFraction.perMillion() > 0)
        || (abortFraction != null && abortFraction.perMillion() > 0);
  }
}
