package dev.tern.netty;

import dev.tern.ServerBuilder;
import dev.tern.ServerProvider;

/**
 * Lets {@code ServerBuilder.forPort(port)} build a {@link NettyServerBuilder}. Priority 5.
 * Stateless; thread-safe.
 */
public final class NettyServerProvider extends ServerProvider {
  /** For {@link java.util.ServiceLoader}. */
  public NettyServerProvider() {}

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public int priority() {
    return 5;
  }

  @Override
  public ServerBuilder<?> builderForPort(int port) {
    return NettyServerBuilder.forPort(port);
  }
}
