package dev.tern.inprocess;

import dev.tern.ForwardingServerBuilder;
import dev.tern.ServerBuilder;
import dev.tern.internal.server.AbstractServerBuilder;
import dev.tern.spi.TransportServer;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Builds a server reachable only from the same JVM, under a name, through {@link
 * InProcessChannelBuilder#forName}. Calls skip sockets, HTTP/2 and framing entirely: messages are
 * handed over as the marshallers' streams. Ideal for tests:
 *
 * <pre>{@code
 * String name = InProcessServerBuilder.generateName();
 * Server server = InProcessServerBuilder.forName(name).directExecutor()
 *     .addService(new GreeterImpl()).build().start();
 * ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
 * }</pre>
 *
 * <p>The name is registered process-wide while the server runs; starting a second server under a
 * name in use fails with an {@link java.io.IOException}. TLS is not supported (the connection
 * cannot be observed, and reports {@link dev.tern.SecurityLevel#PRIVACY_AND_INTEGRITY}).
 *
 * <p>The server logs one INFO line on the {@code java.util.logging} logger {@code
 * dev.tern.inprocess.server} when it starts ({@code Tern server listening on inprocess:NAME}) and
 * one when it stops ({@code Tern server on inprocess:NAME stopped}); nothing per call.
 *
 * <p>Not thread-safe: configure from one thread, then {@link #build()}.
 */
public final class InProcessServerBuilder extends ForwardingServerBuilder<InProcessServerBuilder> {
  private final String name;
  private final Assembly assembly = new Assembly();
  private ScheduledExecutorService scheduler;

  private InProcessServerBuilder(String name) {
    this.name = new InProcessSocketAddress(name).getName();
  }

  /**
   * A builder for a server named {@code name}.
   *
   * @throws IllegalArgumentException if {@code name} is empty
   */
  public static InProcessServerBuilder forName(String name) {
    return new InProcessServerBuilder(Objects.requireNonNull(name, "name"));
  }

  /** A builder for a server at {@code address}. */
  public static InProcessServerBuilder forAddress(InProcessSocketAddress address) {
    return new InProcessServerBuilder(Objects.requireNonNull(address, "address").getName());
  }

  /** A new name no other call of this method returns, for a server private to one test. */
  public static String generateName() {
    return "tern-inprocess-" + UUID.randomUUID();
  }

  /**
   * The timer for server-side deadlines and the handshake timeout. The caller owns it (the server
   * does not shut it down). Default: Tern's shared timer thread.
   */
  public InProcessServerBuilder scheduledExecutorService(ScheduledExecutorService scheduler) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduledExecutorService");
    return this;
  }

  @Override
  protected ServerBuilder<?> delegate() {
    return assembly;
  }

  /** The runtime's server builder, with this transport's server. */
  private final class Assembly extends AbstractServerBuilder<Assembly> {
    @Override
    protected TransportServer buildTransportServer() {
      return new InProcessServer(
          name, scheduler, maxInboundMessageSize(), maxInboundMetadataSize());
    }
  }
}
