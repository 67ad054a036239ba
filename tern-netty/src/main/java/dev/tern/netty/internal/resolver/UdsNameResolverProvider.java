package dev.tern.netty.internal.resolver;

import dev.tern.NameResolver;
import dev.tern.NameResolverProvider;
import dev.tern.internal.channel.DirectAddressNameResolver;
import dev.tern.netty.internal.io.DomainSockets;
import java.net.SocketAddress;
import java.net.URI;
import java.util.Collection;
import java.util.List;

/**
 * The Unix domain socket schemes of the gRPC naming spec: {@code unix:path} (relative or absolute),
 * {@code unix:///absolute/path}, and {@code unix-abstract:name} (a Linux abstract socket: the name
 * with a NUL byte in front, no file). Each resolves to that one socket; calls carry the authority
 * {@code localhost}. Available when Netty's unix classes are on the class path (the native epoll or
 * io_uring transport, which connects to them). Stateless; thread-safe.
 */
public abstract class UdsNameResolverProvider extends NameResolverProvider {
  private final String scheme;

  UdsNameResolverProvider(String scheme) {
    this.scheme = scheme;
  }

  /** {@code unix:path} and {@code unix:///absolute/path}. */
  public static final class Unix extends UdsNameResolverProvider {
    /** For {@link java.util.ServiceLoader}. */
    public Unix() {
      super("unix");
    }

    @Override
    String path(URI targetUri) {
      String display = "unix:" + targetUri.getSchemeSpecificPart();
      if (targetUri.isOpaque()) {
        return requireNonEmpty(targetUri.getSchemeSpecificPart(), display);
      }
      if (targetUri.getAuthority() != null) {
        throw new IllegalArgumentException(
            "target '"
                + display
                + "' has an authority ('"
                + targetUri.getAuthority()
                + "'); write unix:relative/path or unix:///absolute/path");
      }
      return requireNonEmpty(targetUri.getPath(), display);
    }
  }

  /** {@code unix-abstract:name}. */
  public static final class UnixAbstract extends UdsNameResolverProvider {
    /** For {@link java.util.ServiceLoader}. */
    public UnixAbstract() {
      super("unix-abstract");
    }

    @Override
    String path(URI targetUri) {
      String name = targetUri.getSchemeSpecificPart();
      return "\0" + requireNonEmpty(name, "unix-abstract:" + name);
    }
  }

  /** The socket path ('\0' first for an abstract name) of {@code targetUri}. */
  abstract String path(URI targetUri);

  private static String requireNonEmpty(String path, String display) {
    if (path == null || path.isEmpty()) {
      throw new IllegalArgumentException("target '" + display + "' names no socket");
    }
    return path;
  }

  @Override
  public boolean isAvailable() {
    return DomainSockets.nettyTypePresent();
  }

  @Override
  public int priority() {
    return 5;
  }

  @Override
  public String getScheme() {
    return scheme;
  }

  @Override
  public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
    return List.of(DomainSockets.nettyType());
  }

  /**
   * @throws IllegalArgumentException if the target names no socket (or, for {@code unix:}, has an
   *     authority)
   */
  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    return new DirectAddressNameResolver(
        DomainSockets.newNettyAddress(path(targetUri)), DomainSockets.DEFAULT_AUTHORITY);
  }
}
