package dev.tern.netty;

import java.util.concurrent.TimeUnit;

/**
 * Lets tests outside this package use keepalive times below the builders' minimums (10 seconds for
 * a channel, 1 second for a server), which would make a test of keepalive wait that long a ping.
 * Stateless; thread-safe.
 */
public final class KeepAliveTimes {
  private KeepAliveTimes() {}

  /** {@code builder}, with its keepalive time no longer raised to 10 seconds. */
  public static NettyChannelBuilder withoutMinimum(NettyChannelBuilder builder) {
    return builder.keepAliveTimeMinimum(0, TimeUnit.NANOSECONDS);
  }

  /** {@code builder}, with its keepalive time no longer raised to 1 second. */
  public static NettyServerBuilder withoutMinimum(NettyServerBuilder builder) {
    return builder.keepAliveTimeMinimum(0, TimeUnit.NANOSECONDS);
  }
}
