package dev.tern;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * Lets {@link ManagedChannelBuilder#forTarget} find a transport. Implementations are listed in
 * {@code META-INF/services/dev.tern.ManagedChannelProvider}. Thread-safe.
 */
public abstract class ManagedChannelProvider {
  /** For subclasses. */
  protected ManagedChannelProvider() {}

  /** Whether the transport can run here (e.g. its native libraries loaded). */
  public abstract boolean isAvailable();

  /** Higher wins when several providers accept a target; 5 is the norm, 0..10. */
  public abstract int priority();

  /** A builder for {@code target}, or null if this provider does not handle that form. */
  public abstract ManagedChannelBuilder<?> builderForTarget(String target);

  /** A builder for {@code host:port}, or null if this provider does not handle addresses. */
  public abstract ManagedChannelBuilder<?> builderForAddress(String host, int port);

  /**
   * Asks the available providers, highest priority first, and returns the first builder.
   *
   * @param what describes the request, for the error message
   * @throws IllegalStateException if none accepts
   */
  public static ManagedChannelBuilder<?> select(
      Function<ManagedChannelProvider, ManagedChannelBuilder<?>> ask, String what) {
    for (ManagedChannelProvider provider : available()) {
      ManagedChannelBuilder<?> builder = ask.apply(provider);
      if (builder != null) {
        return builder;
      }
    }
    throw new IllegalStateException(
        "No channel transport accepts "
            + what
            + ": add tern-netty (or another transport) to the class path");
  }

  private static List<ManagedChannelProvider> available() {
    List<ManagedChannelProvider> providers = new ArrayList<>();
    for (ManagedChannelProvider p :
        ServiceLoader.load(
            ManagedChannelProvider.class, ManagedChannelProvider.class.getClassLoader())) {
      if (p.isAvailable()) {
        providers.add(p);
      }
    }
    providers.sort(Comparator.comparingInt(ManagedChannelProvider::priority).reversed());
    return providers;
  }
}
