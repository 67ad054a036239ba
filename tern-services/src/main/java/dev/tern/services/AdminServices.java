package dev.tern.services;

import dev.tern.ServerBuilder;
import dev.tern.ServerServiceDefinition;
import dev.tern.services.channelz.ChannelzService;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * The admin services in one call, to add to a server (usually a separate one, on a port only
 * operators reach):
 *
 * <pre>{@code
 * Server admin = AdminServices.addTo(NettyServerBuilder.forPort(9901)).build().start();
 * }</pre>
 *
 * <p>That is channelz ({@code grpc.channelz.v1.Channelz}), which describes every channel and server
 * of the process, and every {@link AdminServiceProvider} found through {@link ServiceLoader}: with
 * tern-xds present, the Client Status Discovery Service ({@code
 * envoy.service.status.v3.ClientStatusDiscoveryService}), which shows what the xDS clients hold.
 * Thread-safe: stateless.
 */
public final class AdminServices {
  private AdminServices() {}

  /** New definitions of the standard admin services, in a new unmodifiable list. */
  public static List<ServerServiceDefinition> getStandardServices() {
    List<ServerServiceDefinition> services = new ArrayList<>();
    services.add(ChannelzService.newInstance().bindService());
    for (AdminServiceProvider provider :
        ServiceLoader.load(AdminServiceProvider.class, AdminServices.class.getClassLoader())) {
      services.add(provider.newService());
    }
    return List.copyOf(services);
  }

  /** Adds {@link #getStandardServices()} to {@code builder}; returns it. */
  public static <T extends ServerBuilder<T>> T addTo(T builder) {
    Objects.requireNonNull(builder, "builder");
    for (ServerServiceDefinition service : getStandardServices()) {
      builder.addService(service);
    }
    return builder;
  }
}
