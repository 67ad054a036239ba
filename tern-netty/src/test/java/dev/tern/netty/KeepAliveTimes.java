package dev.tern.netty;

import java.util.concurrent.TimeUnit;

/**
 * Lets tests outside this package use keepalive times below the builder's 10-second minimum, which
 * would make a test of keepalive wait 10 seconds a ping. Stateless; thread-safe.
 */
public final class KeepAliveTimes {
  private KeepAliveTimes() {}

  /** {@code builder}, with its keepalive time no longer raised to 10 seconds. */
  public static NettyChannelBuilder withoutMinimum(NettyChannelBuilder builder) {
    return builder.keepAliveTimeMinimum(0, TimeUnit.NANOSECONDS);
  }
}
