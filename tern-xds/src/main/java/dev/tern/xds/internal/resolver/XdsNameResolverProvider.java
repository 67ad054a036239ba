package dev.tern.xds.internal.resolver;

import dev.tern.NameResolver;
import dev.tern.NameResolverProvider;
import dev.tern.xds.Bootstrap;
import dev.tern.xds.XdsClientPool;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The provider of the {@code xds} scheme: {@code xds:///name}, or {@code xds://authority/name} for
 * an authority of the bootstrap (A47). Registered through {@code ServiceLoader}; the bootstrap
 * comes from {@link Bootstrap#fromEnvironment()} when a resolver starts, its client from {@link
 * XdsClientPool#shared()}. Thread-safe.
 */
public final class XdsNameResolverProvider extends NameResolverProvider {
  private final Supplier<Bootstrap> bootstrap;
  private final XdsClientPool pool;
  private final XdsRandom random;

  /** The provider ServiceLoader makes: the environment's bootstrap, the shared pool. */
  public XdsNameResolverProvider() {
    this(Bootstrap::fromEnvironment, XdsClientPool.shared(), XdsRandom.DEFAULT);
  }

  /** A provider with its own bootstrap, pool and randomness (tests, or an application's own). */
  public XdsNameResolverProvider(
      Supplier<Bootstrap> bootstrap, XdsClientPool pool, XdsRandom random) {
    this.bootstrap = Objects.requireNonNull(bootstrap, "bootstrap");
    this.pool = Objects.requireNonNull(pool, "pool");
    this.random = Objects.requireNonNull(random, "random");
  }

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public int priority() {
    return 5;
  }

  @Override
  public String getScheme() {
    return "xds";
  }

  @Override
  public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
    return List.of(InetSocketAddress.class);
  }

  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    if (!"xds".equalsIgnoreCase(targetUri.getScheme())) {
      return null;
    }
    String path = targetUri.getPath();
    if (path == null || !path.startsWith("/") || path.length() == 1) {
      throw new IllegalArgumentException(
          "an xds target is xds:///name or xds://authority/name, not \"" + targetUri + "\"");
    }
    String authority = targetUri.getAuthority() == null ? "" : targetUri.getAuthority();
    return new XdsNameResolver(authority, path.substring(1), args, bootstrap, pool, random);
  }
}
