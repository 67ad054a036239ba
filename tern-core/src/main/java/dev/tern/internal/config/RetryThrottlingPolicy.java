package dev.tern.internal.config;

/**
 * A service config's {@code retryThrottling} (gRFC A6): a channel-wide token bucket that stops
 * retries and hedges while too many calls fail. Immutable; thread-safe.
 *
 * @param maxTokens the bucket's size, 1..1000; retries stop while it is at most half full
 * @param tokenRatio the tokens a successful call puts back (a failure takes one), a multiple of
 *     0.001 and > 0
 */
public record RetryThrottlingPolicy(int maxTokens, double tokenRatio) {}
