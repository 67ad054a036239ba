package dev.tern.internal.config;

/**
 * One {@code methodConfig} entry of a service config: what applies to the methods it names. Each
 * component is null when the entry does not set it, so the channel's own default applies.
 * Immutable; thread-safe.
 *
 * @param timeoutNanos the longest a call may take (>= 0), or null
 * @param waitForReady whether calls wait for a connection instead of failing fast, or null
 * @param maxRequestMessageBytes the largest message a call may send (>= 0), or null
 * @param maxResponseMessageBytes the largest message a call may receive (>= 0), or null
 * @param retryPolicy how failed calls are retried, or null; never set together with hedging
 * @param hedgingPolicy how calls are hedged, or null; never set together with retries
 */
public record MethodConfig(
    Long timeoutNanos,
    Boolean waitForReady,
    Integer maxRequestMessageBytes,
    Integer maxResponseMessageBytes,
    RetryPolicy retryPolicy,
    HedgingPolicy hedgingPolicy) {}
