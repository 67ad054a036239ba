package dev.tern;

import java.net.SocketAddress;
import java.net.URI;
import java.util.Collection;

/**
 * Creates {@link NameResolver}s for targets of one URI scheme ({@code dns}, {@code ipv4}, {@code
 * unix}, ...). Providers are found through {@link java.util.ServiceLoader} (listed in {@code
 * META-INF/services/dev.tern.NameResolverProvider}) or {@link NameResolverRegistry#register
 * registered} by the application. Implementations must be thread-safe.
 */
public abstract class NameResolverProvider {
  /** For subclasses. */
  protected NameResolverProvider() {}

  /** Whether the provider can work here (its libraries present, say). */
  public abstract boolean isAvailable();

  /**
   * Among available providers of the same scheme, the higher is asked first; 5 is the norm, 0..10.
   */
  public abstract int priority();

  /** The scheme this provider handles, in lower case, e.g. {@code "dns"}. */
  public abstract String getScheme();

  /**
   * The kinds of address the resolvers produce; the channel's transport must support them (a {@code
   * unix:} target needs a transport that can reach a Unix domain socket).
   */
  public abstract Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes();

  /**
   * A resolver for {@code targetUri}, or null if this provider does not handle this form of it (the
   * registry then asks the next provider of the scheme).
   *
   * @throws IllegalArgumentException if the target is malformed; the message says how
   */
  public abstract NameResolver newNameResolver(URI targetUri, NameResolver.Args args);

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{scheme=" + getScheme() + ", priority=" + priority() + "}";
  }
}
