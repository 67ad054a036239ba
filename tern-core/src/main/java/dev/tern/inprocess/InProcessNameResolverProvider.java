package dev.tern.inprocess;

import dev.tern.NameResolver;
import dev.tern.NameResolverProvider;
import dev.tern.internal.channel.DirectAddressNameResolver;
import java.net.SocketAddress;
import java.net.URI;
import java.util.Collection;
import java.util.List;

/**
 * The {@code inprocess:NAME} scheme: the in-process server registered under {@code NAME}. Nothing
 * is looked up; the server need not exist yet (calls then fail UNAVAILABLE and the channel retries
 * like any other). Stateless; thread-safe.
 */
public final class InProcessNameResolverProvider extends NameResolverProvider {
  /** For {@link java.util.ServiceLoader}. */
  public InProcessNameResolverProvider() {}

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
    return "inprocess";
  }

  @Override
  public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
    return List.of(InProcessSocketAddress.class);
  }

  /**
   * @throws IllegalArgumentException if the name is empty
   */
  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    String name = targetUri.getSchemeSpecificPart();
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("target '" + targetUri + "' names no in-process server");
    }
    return new DirectAddressNameResolver(new InProcessSocketAddress(name), "localhost");
  }
}
