package dev.tern.examples.nameresolve;

import dev.tern.NameResolver;
import dev.tern.NameResolverProvider;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The {@code example} scheme: {@code example:///greeter} resolves, through an {@link
 * ExampleNameResolver}, to the servers this provider's table lists for {@code greeter}. Register it
 * in a {@link dev.tern.NameResolverRegistry} given to the channel builder (or list it in {@code
 * META-INF/services/dev.tern.NameResolverProvider} to have every channel find it). Immutable;
 * thread-safe.
 */
public final class ExampleNameResolverProvider extends NameResolverProvider {
  /** The scheme of the targets this provider resolves. */
  public static final String SCHEME = "example";

  private final Map<String, List<InetSocketAddress>> table;

  /** A provider resolving each service name in {@code table} to its servers. */
  public ExampleNameResolverProvider(Map<String, List<InetSocketAddress>> table) {
    this.table = Map.copyOf(table);
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
    return SCHEME;
  }

  @Override
  public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
    return List.of(InetSocketAddress.class);
  }

  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    String path = targetUri.getPath();
    if (path == null || path.length() < 2) {
      throw new IllegalArgumentException(
          "target must look like example:///SERVICE, was " + targetUri);
    }
    return new ExampleNameResolver(path.substring(1), table);
  }
}
