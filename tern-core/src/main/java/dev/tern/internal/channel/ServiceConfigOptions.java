package dev.tern.internal.channel;

import dev.tern.internal.config.ServiceConfig;

/**
 * A channel's service-config and retry settings, from its builder.
 *
 * <p>Immutable; thread-safe.
 *
 * @param defaultConfig used when service config look-up is off, or when the resolver provides none
 *     (null: no config)
 * @param lookUp whether configs from the name resolver are used
 * @param retryEnabled whether retry and hedging policies apply (transparent retries always do)
 * @param maxRetryAttempts the most attempts a retry policy may make
 * @param maxHedgedAttempts the most attempts a hedging policy may make
 * @param retryBufferSize bytes of requests the channel keeps for replays, over all calls
 * @param perRpcBufferLimit bytes of requests one call may keep for replays
 */
public record ServiceConfigOptions(
    ServiceConfig defaultConfig,
    boolean lookUp,
    boolean retryEnabled,
    int maxRetryAttempts,
    int maxHedgedAttempts,
    long retryBufferSize,
    long perRpcBufferLimit) {

  /** Look-up on, retries on, at most 5 attempts, 16 MiB per channel, 1 MiB per call. */
  public static final ServiceConfigOptions DEFAULT =
      new ServiceConfigOptions(null, true, true, 5, 5, 16L << 20, 1L << 20);

  /**
   * @throws IllegalArgumentException if a limit is not positive
   */
  public ServiceConfigOptions {
    if (maxRetryAttempts < 1 || maxHedgedAttempts < 1) {
      throw new IllegalArgumentException(
          "maxRetryAttempts and maxHedgedAttempts must be >= 1, were "
              + maxRetryAttempts
              + " and "
              + maxHedgedAttempts);
    }
    if (retryBufferSize <= 0 || perRpcBufferLimit <= 0) {
      throw new IllegalArgumentException(
          "retryBufferSize and perRpcBufferLimit must be > 0, were "
              + retryBufferSize
              + " and "
              + perRpcBufferLimit);
    }
  }
}
