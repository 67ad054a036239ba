package dev.tern.grpcjava.internal.resolver;

import dev.tern.grpcjava.internal.convert.Proxies;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A grpc-java {@code NameResolverProvider} as Tern's: makes grpc-java's resolver with grpc-java's
 * arguments built from Tern's (default port, scheduler, offload executor, the channel's proxy
 * detector) and wraps it in a {@link GrpcJavaNameResolver}. Immutable and thread-safe.
 */
final class GrpcJavaNameResolverProvider extends dev.tern.NameResolverProvider {
  private static final Logger logger = Logger.getLogger(GrpcJavaNameResolver.class.getName());

  private final io.grpc.NameResolverProvider provider;
  private final String scheme;

  GrpcJavaNameResolverProvider(io.grpc.NameResolverProvider provider, String scheme) {
    this.provider = provider;
    this.scheme = scheme;
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
    io.grpc.NameResolver.Args grpcArgs =
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
            .setChannelLogger(new LoggingChannelLogger())
            .build();
    io.grpc.NameResolver resolver = provider.newNameResolver(targetUri, grpcArgs);
    return resolver == null
        ? null
        : new GrpcJavaNameResolver(resolver, args.getServiceConfigParser());
  }

  @Override
  public String toString() {
    return "grpc-java's " + provider.getClass().getName() + " for " + scheme + ":";
  }

  /** Hands the service config's map to the resolver's result unparsed. Stateless. */
  private static final class RawServiceConfig extends io.grpc.NameResolver.ServiceConfigParser {
    @Override
    public io.grpc.NameResolver.ConfigOrError parseServiceConfig(Map<String, ?> rawServiceConfig) {
      return io.grpc.NameResolver.ConfigOrError.fromConfig(rawServiceConfig);
    }
  }

  /** What a grpc-java resolver logs, at FINE and below. Stateless. */
  private static final class LoggingChannelLogger extends io.grpc.ChannelLogger {
    @Override
    public void log(ChannelLogLevel level, String message) {
      logger.log(level == ChannelLogLevel.ERROR ? Level.WARNING : Level.FINE, message);
    }

    @Override
    public void log(ChannelLogLevel level, String messageFormat, Object... args) {
      if (logger.isLoggable(Level.FINE) || level == ChannelLogLevel.ERROR) {
        log(level, java.text.MessageFormat.format(messageFormat, args));
      }
    }
  }
}
