package dev.tern.grpcjava.internal.resolver;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Map;

/**
 * Chooses who resolves a bridged channel's target. Tern's own resolvers ({@code dns}, {@code unix},
 * ...) keep their schemes; a scheme Tern has no resolver for, but for which the application
 * registered a provider in grpc-java's {@code NameResolverRegistry} (as grpc-java's load-balancing
 * and name-resolution examples do), is resolved by that provider through {@link
 * GrpcJavaNameResolverProvider}. Stateless and thread-safe.
 */
public final class GrpcJavaResolvers {
  private GrpcJavaResolvers() {}

  /**
   * A registry with the grpc-java provider for {@code target}'s scheme, or null if Tern resolves
   * the target itself (or nobody does, which Tern's channel reports as it does for any target).
   */
  public static dev.tern.NameResolverRegistry registryFor(String target) {
    return registryFor(target, null, Map.of());
  }

  /**
   * A registry for a channel built with grpc-java's {@code nameResolverFactory} or {@code
   * setNameResolverArg}: {@code factory} (if not null) resolves {@code target} whatever its scheme,
   * a target without one reaching it with the factory's default scheme, as on grpc-java; else the
   * grpc-java provider registered for the target's scheme does, as {@link #registryFor(String)}
   * chooses it. Either is given {@code customArgs}. Null if Tern resolves the target itself.
   */
  public static dev.tern.NameResolverRegistry registryFor(
      String target,
      io.grpc.NameResolver.Factory factory,
      Map<io.grpc.NameResolver.Args.Key<?>, Object> customArgs) {
    String scheme = schemeOf(target);
    dev.tern.NameResolverRegistry registry = new dev.tern.NameResolverRegistry();
    if (factory != null) {
      // A target without a scheme gets Tern's default scheme; the factory gets its own.
      registry.register(
          scheme == null
              ? new GrpcJavaNameResolverProvider(
                  factory, registry.getDefaultScheme(), factory.getDefaultScheme(), customArgs)
              : new GrpcJavaNameResolverProvider(factory, scheme, null, customArgs));
      return registry;
    }
    if (scheme == null
        || !dev.tern.NameResolverRegistry.getDefaultRegistry().providersFor(scheme).isEmpty()) {
      return null;
    }
    io.grpc.NameResolverProvider provider =
        io.grpc.NameResolverRegistry.getDefaultRegistry().getProviderForScheme(scheme);
    if (provider == null) {
      return null;
    }
    registry.register(new GrpcJavaNameResolverProvider(provider, scheme, null, customArgs));
    return registry;
  }

  /** The scheme of a target written as a URI ({@code scheme:...}), or null. */
  static String schemeOf(String target) {
    try {
      URI uri = new URI(target);
      String scheme = uri.getScheme();
      // "localhost:50051" parses with the scheme "localhost"; a URI target has a path or //.
      if (scheme == null || (uri.getPath() == null && uri.getAuthority() == null)) {
        return null;
      }
      return scheme.toLowerCase(Locale.ROOT);
    } catch (URISyntaxException e) {
      return null;
    }
  }
}
