package dev.tern.inprocess;

import dev.tern.ForwardingChannelBuilder;
import dev.tern.ManagedChannelBuilder;
import dev.tern.internal.SharedExecutors;
import dev.tern.internal.channel.AbstractManagedChannelBuilder;
import dev.tern.spi.ClientTransportFactory;
import dev.tern.spi.ManagedClientTransport;
import java.net.SocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Builds a channel to the {@link InProcessServerBuilder in-process server} of a given name, in the
 * same JVM. {@code ManagedChannelBuilder.forTarget("inprocess:NAME")} returns one too.
 *
 * <p>The channel connects when first used; if no server is registered under the name then, calls
 * fail UNAVAILABLE ("Could not find server: NAME") and the channel retries with backoff like any
 * other. The default authority is {@code localhost}. {@link #usePlaintext()} and {@link
 * #useTransportSecurity()} change nothing: the connection cannot be observed and reports {@link
 * dev.tern.SecurityLevel#PRIVACY_AND_INTEGRITY}. {@link #maxInboundMetadataSize} is enforced on
 * response headers and trailers. The keepalive options ({@link #keepAliveTime}, {@link
 * #keepAliveTimeout}, {@link #keepAliveWithoutCalls}) are accepted and ignored: an in-process
 * connection cannot silently vanish, so there is nothing to probe.
 *
 * <p>Not thread-safe: configure from one thread, then {@link #build()}.
 */
public final class InProcessChannelBuilder
    extends ForwardingChannelBuilder<InProcessChannelBuilder> {
  private final InProcessSocketAddress address;
  private final Assembly assembly = new Assembly();
  private ScheduledExecutorService scheduler;

  private InProcessChannelBuilder(InProcessSocketAddress address) {
    this.address = address;
  }

  /**
   * A builder for a channel to the server named {@code name}.
   *
   * @throws IllegalArgumentException if {@code name} is empty
   */
  public static InProcessChannelBuilder forName(String name) {
    return new InProcessChannelBuilder(new InProcessSocketAddress(name));
  }

  /** A builder for a channel to the server at {@code address}. */
  public static InProcessChannelBuilder forAddress(InProcessSocketAddress address) {
    return new InProcessChannelBuilder(Objects.requireNonNull(address, "address"));
  }

  /**
   * The timer for the channel's deadlines and idle timeout. The caller owns it (the channel does
   * not shut it down). Default: Tern's shared timer thread.
   */
  public InProcessChannelBuilder scheduledExecutorService(ScheduledExecutorService scheduler) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduledExecutorService");
    return this;
  }

  /** Does nothing: an in-process connection has no TLS to turn off. */
  @Override
  public InProcessChannelBuilder usePlaintext() {
    return this;
  }

  /** Does nothing: an in-process connection is already private. */
  @Override
  public InProcessChannelBuilder useTransportSecurity() {
    return this;
  }

  @Override
  protected ManagedChannelBuilder<?> delegate() {
    return assembly;
  }

  /** The runtime's channel builder, with this transport's parts. */
  private final class Assembly extends AbstractManagedChannelBuilder<Assembly> {
    @Override
    protected ClientTransportFactory buildTransportFactory() {
      return new TransportFactory(
          scheduler != null ? scheduler : SharedExecutors.timer(), maxInboundMetadataSize());
    }

    @Override
    protected String target() {
      return "inprocess:" + address.getName();
    }

    @Override
    protected SocketAddress directAddress() {
      return address;
    }

    @Override
    protected Collection<Class<? extends SocketAddress>> supportedAddressTypes() {
      return List.of(InProcessSocketAddress.class);
    }
  }

  private static final class TransportFactory implements ClientTransportFactory {
    private final ScheduledExecutorService scheduler;
    private final int maxInboundMetadataSize;
    private volatile boolean closed;

    TransportFactory(ScheduledExecutorService scheduler, int maxInboundMetadataSize) {
      this.scheduler = scheduler;
      this.maxInboundMetadataSize = maxInboundMetadataSize;
    }

    /**
     * A new transport to the server at {@code address}.
     *
     * @throws IllegalArgumentException if {@code address} is not an {@link InProcessSocketAddress}
     * @throws IllegalStateException if the factory is closed
     */
    @Override
    public ManagedClientTransport newClientTransport(
        SocketAddress address, String authority, String userAgent) {
      Objects.requireNonNull(address, "address");
      if (!(address instanceof InProcessSocketAddress)) {
        throw new IllegalArgumentException(
            "address must be an InProcessSocketAddress, was " + address.getClass().getName());
      }
      if (closed) {
        throw new IllegalStateException("transport factory is closed");
      }
      return new InProcessTransport(
          (InProcessSocketAddress) address, authority, userAgent, maxInboundMetadataSize);
    }

    @Override
    public ScheduledExecutorService getScheduledExecutorService() {
      return scheduler;
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
