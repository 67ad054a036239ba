package dev.tern;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Lets {@link ServerBuilder#forPort} find a server transport. Implementations are listed in {@code
 * META-INF/services/dev.tern.ServerProvider}. Thread-safe.
 */
public abstract class ServerProvider {
  /** For subclasses. */
  protected ServerProvider() {}

  /** Whether the transport can run here. */
  public abstract boolean isAvailable();

  /** Higher wins; 5 is the norm, 0..10. */
  public abstract int priority();

  /** A builder for a server on {@code port}, or null if this transport does not use ports. */
  public abstract ServerBuilder<?> builderForPort(int port);

  /**
   * Returns the builder of the highest-priority available provider that accepts {@code port}.
   *
   * @throws IllegalStateException if none accepts
   */
  public static ServerBuilder<?> select(int port) {
    List<ServerProvider> providers = new ArrayList<>();
    for (ServerProvider p :
        ServiceLoader.load(ServerProvider.class, ServerProvider.class.getClassLoader())) {
      if (p.isAvailable()) {
        providers.add(p);
      }
    }
    providers.sort(Comparator.comparingInt(ServerProvider::priority).reversed());
    for (ServerProvider provider : providers) {
      ServerBuilder<?> builder = provider.builderForPort(port);
      if (builder != null) {
        return builder;
      }
    }
    throw new IllegalStateException(
        "No server transport for port "
            + port
            + ": add tern-netty (or another transport) to the class path");
  }
}
