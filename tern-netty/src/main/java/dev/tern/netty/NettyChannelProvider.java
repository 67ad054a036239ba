package dev.tern.netty;

import dev.tern.ManagedChannelBuilder;
import dev.tern.ManagedChannelProvider;

/**
 * Lets {@code ManagedChannelBuilder.forAddress(host, port)} and {@code forTarget("host:port")}
 * build a {@link NettyChannelBuilder}. Priority 6, above the in-process transport, for the targets
 * both could claim. Stateless; thread-safe.
 */
public final class NettyChannelProvider extends ManagedChannelProvider {
  /** For {@link java.util.ServiceLoader}. */
  public NettyChannelProvider() {}

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public int priority() {
    return 6;
  }

  /** A builder for {@code host:port} or {@code dns:///host:port}; null for other forms. */
  @Override
  public ManagedChannelBuilder<?> builderForTarget(String target) {
    if (target == null || NettyChannelBuilder.parseTarget(target) == null) {
      return null;
    }
    return NettyChannelBuilder.forTarget(target);
  }

  @Override
  public ManagedChannelBuilder<?> builderForAddress(String host, int port) {
    return NettyChannelBuilder.forAddress(host, port);
  }
}
