package dev.tern.grpcjava.internal.resolver;

import dev.tern.grpcjava.internal.convert.LoggingChannelLogger;
import dev.tern.grpcjava.internal.convert.Proxies;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A grpc-java {@code NameResolverProvider} (or a channel's {@code NameResolver.Factory}) as Tern's:
 * makes grpc-java's resolver with grpc-java's arguments built from Tern's (default port, scheduler,
 * offload executor, the channel's proxy detector) plus the channel builder's {@code
 * setNameResolverArg} values, and wraps it in a {@link GrpcJavaNameResolver}. A target Tern gave
 * its default scheme (it had none) reaches the factory with the factory's default scheme instead,
 * as grpc-java's channel makes it. Immutable and thread-safe.
 */
final class GrpcJavaNameResolverProvider extends dev.tern.NameResolverProvider {
  private static final Logger logger = Logger.getLogger(GrpcJavaNameResolver.class.getName());

  private final io.grpc.NameResolver.Factory provider;
  private final String scheme;
  private final String factoryScheme;
  private final Map<io.grpc.NameResolver.Args.Key<?>, Object> customArgs;

  /**
   * @param scheme the scheme Tern asks this provider for
   * @param factoryScheme the scheme the target URI is given to the factory with, or null to keep
   *     Tern's
   * @param customArgs the channel's {@code setNameResolverArg} values
   */
  GrpcJavaNameResolverProvider(
      io.grpc.NameResolver.Factory provider,
      String scheme,
      String factoryScheme,
      Map<io.grpc.NameResolver.Args.Key<?>, Object> customArgs) {
    this.provider = provider;
    this.scheme = scheme;
    this.factoryScheme = factoryScheme;
    this.customArgs = Map.copyOf(customArgs);
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
    return scheme;
  }

  @Override
  public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
    return List.of(InetSocketAddress.class);
  }

  @Override
  public dev.tern.NameResolver newNameResolver(URI targetUri, dev.tern.NameResolver.Args args) {
    io.grpc.NameResolver.Args.Builder grpcArgs =
        io.grpc.NameResolver.Args.newBuilder()
            .setDefaultPort(args.getDefaultPort())
            .setProxyDetector(Proxies.toGrpc(args.getProxyDetector()))
            .setSynchronizationContext(
                new io.grpc.SynchronizationContext(
                    (thread, failure) ->
                        logger.log(
                            Level.SEVERE,
                            "grpc-java name resolver for " + targetUri + " threw",
                            failure)))
            .setScheduledExecutorService(args.getScheduledExecutorService())
            .setOffloadExecutor(args.getOffloadExecutor())
            // The raw map goes through; Tern's parser reads it in GrpcJavaNameResolver.
            .setServiceConfigParser(new RawServiceConfig())
            .setChannelLogger(new LoggingChannelLogger(logger));
    customArgs.forEach((key, value) -> setArg(grpcArgs, key, value));
    io.grpc.NameResolver resolver =
        provider.newNameResolver(asGrpcJavaGivesIt(targetUri), grpcArgs.build());
    return resolver == null
        ? null
        : new GrpcJavaNameResolver(resolver, args.getServiceConfigParser());
  }

  @Override
  public String toString() {
    return "grpc-java's " + provider.getClass().getName() + " for " + scheme + ":";
  }

  /**
   * The target as grpc-java's channel gives it to a resolver: {@code scheme:///path} with an empty
   * authority rather than Tern's {@code scheme:/path}, in the factory's scheme if it has one here.
   */
  private URI asGrpcJavaGivesIt(URI targetUri) {
    String authority = targetUri.getAuthority() == null ? "" : targetUri.getAuthority();
    try {
      return new URI(
          factoryScheme == null ? targetUri.getScheme() : factoryScheme,
          authority,
          targetUri.getPath(),
          targetUri.getQuery(),
          targetUri.getFragment());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("targetUri: " + targetUri, e);
    }
  }

  @SuppressWarnings("unchecked") // the builder took each value with its key's type
  private static <T> void setArg(
      io.grpc.NameResolver.Args.Builder args, io.grpc.NameResolver.Args.Key<T> key, Object value) {
    args.setArg(key, (T) value);
  }

  /** Hands the service config's map to the resolver's result unparsed. Stateless. */
  private static final class RawServiceConfig extends io.grpc.NameResolver.ServiceConfigParser {
    @Override
    public io.grpc.NameResolver.ConfigOrError parseServiceConfig(Map<String, ?> rawServiceConfig) {
      return io.grpc.NameResolver.ConfigOrError.fromConfig(rawServiceConfig);
    }
  }
}
