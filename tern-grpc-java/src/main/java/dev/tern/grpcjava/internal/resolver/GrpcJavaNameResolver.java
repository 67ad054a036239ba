package dev.tern.grpcjava.internal.resolver;

import dev.tern.grpcjava.internal.convert.AddressGroups;
import dev.tern.grpcjava.internal.convert.Statuses;
import java.util.List;
import java.util.Map;

/**
 * A grpc-java {@code NameResolver} as Tern's: its results reach Tern's listener with the addresses
 * (grpc-java's address attributes are dropped: their keys mean nothing to Tern's balancers), its
 * service config parsed by Tern's parser, and its errors as Tern's statuses. The wrapped resolver
 * calls back from its own synchronization context; Tern's listener takes calls from any thread.
 * Thread-safe as the wrapped resolver is (Tern calls it from the channel's context).
 */
final class GrpcJavaNameResolver extends dev.tern.NameResolver {
  private final io.grpc.NameResolver resolver;
  private final dev.tern.NameResolver.ServiceConfigParser serviceConfigParser;

  GrpcJavaNameResolver(
      io.grpc.NameResolver resolver,
      dev.tern.NameResolver.ServiceConfigParser serviceConfigParser) {
    this.resolver = resolver;
    this.serviceConfigParser = serviceConfigParser;
  }

  @Override
  public String getServiceAuthority() {
    return resolver.getServiceAuthority();
  }

  @Override
  public void start(Listener listener) {
    resolver.start(
        new io.grpc.NameResolver.Listener2() {
          @Override
          public void onResult(io.grpc.NameResolver.ResolutionResult result) {
            io.grpc.StatusOr<List<io.grpc.EquivalentAddressGroup>> addresses =
                result.getAddressesOrError();
            if (!addresses.hasValue()) {
              listener.onError(Statuses.toTern(addresses.getStatus()));
              return;
            }
            dev.tern.NameResolver.ResolutionResult.Builder converted =
                dev.tern.NameResolver.ResolutionResult.newBuilder()
                    .setAddresses(AddressGroups.toTern(addresses.getValue()));
            io.grpc.NameResolver.ConfigOrError config = result.getServiceConfig();
            if (config != null) {
              converted.setServiceConfig(toTern(config));
            }
            listener.onResult(converted.build());
          }

          @Override
          public void onError(io.grpc.Status error) {
            listener.onError(Statuses.toTern(error));
          }
        });
  }

  @Override
  public void refresh() {
    resolver.refresh();
  }

  @Override
  public void shutdown() {
    resolver.shutdown();
  }

  private dev.tern.NameResolver.ConfigOrError toTern(io.grpc.NameResolver.ConfigOrError config) {
    if (config.getError() != null) {
      return dev.tern.NameResolver.ConfigOrError.fromError(Statuses.toTern(config.getError()));
    }
    if (!(config.getConfig() instanceof Map<?, ?> raw)) {
      return dev.tern.NameResolver.ConfigOrError.fromError(
          dev.tern.Status.UNAVAILABLE.withDescription(
              "grpc-java name resolver returned a service config that is not a JSON object: "
                  + config.getConfig()));
    }
    @SuppressWarnings("unchecked")
    Map<String, ?> map = (Map<String, ?>) raw;
    return serviceConfigParser.parseServiceConfig(map);
  }
}
