package dev.tern.services;

import dev.tern.ServerBuilder;
import dev.tern.ServerServiceDefinition;
import dev.tern.services.channelz.ChannelzService;
import java.util.List;
import java.util.Objects;

/**
 * The admin services in one call, to add to a server (usually a separate one, on a port only
 * operators reach):
 *
 * <pre>{@code
 * Server admin = AdminServices.addTo(NettyServerBuilder.forPort(9901)).build().start();
 * }</pre>
 *
 * <p>Today that is channelz ({@code grpc.channelz.v1.Channelz}), which describes every channel and
 * server of the process. More admin services join {@link #getStandardServices()} as Tern gains
 * them. Thread-safe: stateless.
 */
public final class AdminServices {
  private AdminServices() {}

  /** New definitions of the standard admin services, in a new unmodifiable list. */
  public static List<ServerServiceDefinition> getStandardServices() {
    return List.of(ChannelzService.newInstance().bindService());
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
