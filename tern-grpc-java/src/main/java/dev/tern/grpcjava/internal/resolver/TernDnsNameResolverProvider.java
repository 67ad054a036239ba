package dev.tern.grpcjava.internal.resolver;

import dev.tern.grpcjava.internal.convert.Proxies;
import dev.tern.grpcjava.internal.convert.Statuses;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tern's {@code dns} resolver offered in grpc-java's {@code NameResolverRegistry}, for applications
 * that swapped grpc-java's transport for tern-grpc-java and have no grpc-core (grpc-stub and
 * grpc-protobuf do not bring it). Without any provider there, grpc-api's channel registry finds no
 * resolver for a target's scheme and grpc-api logs a WARNING calling the build broken ("No
 * NameResolverProviders found via ServiceLoader"), although Tern's channel resolves the target with
 * its own resolvers. With grpc-core present, its {@code dns} provider (priority 5) is used instead
 * of this one (priority 3), and bridged channels resolve with Tern's as before.
 *
 * <p>A grpc-java program that asks the registry for a resolver gets a real one: Tern's DNS
 * resolution, its addresses and errors converted to grpc-java's; a service config from DNS (off
 * unless asked for) is parsed by grpc-java's parser. Immutable and thread-safe.
 */
public final class TernDnsNameResolverProvider extends io.grpc.NameResolverProvider {
  private static final Logger logger =
      Logger.getLogger(TernDnsNameResolverProvider.class.getName());

  /** Public for {@link java.util.ServiceLoader}. */
  public TernDnsNameResolverProvider() {}

  @Override
  protected boolean isAvailable() {
    return true;
  }

  /** Below grpc-core's DNS provider (5): this one is for when grpc-core is absent. */
  @Override
  protected int priority() {
    return 3;
  }

  @Override
  public String getDefaultScheme() {
    return "dns";
  }

  @Override
  public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
    return List.of(InetSocketAddress.class);
  }

  @Override
  public io.grpc.NameResolver newNameResolver(URI targetUri, io.grpc.NameResolver.Args args) {
    if (!"dns".equals(targetUri.getScheme())) {
      return null;
    }
    dev.tern.SynchronizationContext sync =
        new dev.tern.SynchronizationContext(
            (thread, failure) ->
                logger.log(
                    Level.SEVERE, "Tern's DNS resolver for " + targetUri + " threw", failure));
    dev.tern.NameResolver.Args ternArgs =
        dev.tern.NameResolver.Args.newBuilder()
            .setDefaultPort(args.getDefaultPort())
            .setSynchronizationContext(sync)
            .setScheduledExecutorService(args.getScheduledExecutorService())
            .setOffloadExecutor(args.getOffloadExecutor())
            .setServiceConfigParser(new RawServiceConfig())
            .setProxyDetector(Proxies.toTern(args.getProxyDetector()))
            .build();
    dev.tern.NameResolver resolver =
        dev.tern.NameResolverRegistry.getDefaultRegistry()
            .newNameResolver(targetUri.toString(), ternArgs);
    return resolver == null ? null : new Resolver(resolver, args.getServiceConfigParser());
  }

  /** Keeps a DNS service config's map unparsed, for grpc-java's parser. Stateless. */
  private static final class RawServiceConfig extends dev.tern.NameResolver.ServiceConfigParser {
    @Override
    public dev.tern.NameResolver.ConfigOrError parseServiceConfig(Map<String, ?> rawServiceConfig) {
      return dev.tern.NameResolver.ConfigOrError.fromConfig(rawServiceConfig);
    }
  }

  /**
   * Tern's resolver as grpc-java's: results and errors converted. Called by grpc-java from its
   * channel's synchronization context; Tern's resolver calls back from its own.
   */
  private static final class Resolver extends io.grpc.NameResolver {
    private final dev.tern.NameResolver resolver;
    private final io.grpc.NameResolver.ServiceConfigParser parser;

    Resolver(dev.tern.NameResolver resolver, io.grpc.NameResolver.ServiceConfigParser parser) {
      this.resolver = resolver;
      this.parser = parser;
    }

    @Override
    public String getServiceAuthority() {
      return resolver.getServiceAuthority();
    }

    @Override
    public void start(Listener2 listener) {
      resolver.start(
          new dev.tern.NameResolver.Listener() {
            @Override
            public void onResult(dev.tern.NameResolver.ResolutionResult result) {
              List<io.grpc.EquivalentAddressGroup> addresses = new ArrayList<>();
              for (dev.tern.EquivalentAddressGroup group : result.getAddresses()) {
                addresses.add(
                    new io.grpc.EquivalentAddressGroup(
                        Proxies.addressesToGrpc(group.getAddresses())));
              }
              ResolutionResult.Builder converted =
                  ResolutionResult.newBuilder()
                      .setAddressesOrError(io.grpc.StatusOr.fromValue(addresses));
              dev.tern.NameResolver.ConfigOrError config = result.getServiceConfig();
              if (config != null) {
                converted.setServiceConfig(serviceConfig(config));
              }
              listener.onResult(converted.build());
            }

            @Override
            public void onError(dev.tern.Status error) {
              listener.onError(Statuses.toGrpc(error));
            }
          });
    }

    @SuppressWarnings("unchecked") // RawServiceConfig keeps the map Tern's resolver read
    private io.grpc.NameResolver.ConfigOrError serviceConfig(
        dev.tern.NameResolver.ConfigOrError config) {
      if (config.getError() != null) {
        return io.grpc.NameResolver.ConfigOrError.fromError(Statuses.toGrpc(config.getError()));
      }
      return parser.parseServiceConfig((Map<String, ?>) config.getConfig());
    }

    @Override
    public void refresh() {
      resolver.refresh();
    }

    @Override
    public void shutdown() {
      resolver.shutdown();
    }
  }
}
