package dev.tern.internal;

import dev.tern.ClientInterceptor;
import dev.tern.CompressorRegistry;
import dev.tern.Deadline;
import dev.tern.DecompressorRegistry;
import dev.tern.spi.ClientTransportFactory;
import java.net.SocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.DoubleSupplier;

/**
 * Everything a {@link ManagedChannelImpl} is built from. {@code AbstractManagedChannelBuilder}
 * fills it from its options; tests build one directly to plug in fakes.
 *
 * <p>Immutable; thread-safe (given thread-safe components, as the SPI requires).
 *
 * @param address the one address the channel connects to
 * @param authority the {@code :authority} of calls that do not override it
 * @param userAgent the full {@code user-agent} value handed to the transports
 * @param transportFactory creates the transports; the channel closes it when it terminates
 * @param executor the application executor, or null for {@link SharedExecutors#callbackExecutor()}
 * @param directExecutor run callbacks inline on the transport thread (then {@code executor} is
 *     ignored)
 * @param interceptors wrap every call; the last one runs first
 * @param idleTimeoutNanos how long the channel may sit unused before it drops its connection
 * @param maxInboundMessageSize default largest response message
 * @param compressorRegistry where {@code CallOptions.withCompression} names are looked up
 * @param decompressorRegistry what responses may be compressed with (and is advertised)
 * @param ticker the time source for the idle timer (tests pass a fake)
 * @param backoffRandom uniform doubles in [0, 1) that jitter the reconnect back-off
 */
public record ChannelConfig(
    SocketAddress address,
    String authority,
    String userAgent,
    ClientTransportFactory transportFactory,
    Executor executor,
    boolean directExecutor,
    List<ClientInterceptor> interceptors,
    long idleTimeoutNanos,
    int maxInboundMessageSize,
    CompressorRegistry compressorRegistry,
    DecompressorRegistry decompressorRegistry,
    Deadline.Ticker ticker,
    DoubleSupplier backoffRandom) {

  /**
   * Checks the components.
   *
   * @throws IllegalArgumentException if {@code idleTimeoutNanos} is not positive or {@code
   *     maxInboundMessageSize} is negative
   */
  public ChannelConfig {
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(authority, "authority");
    Objects.requireNonNull(userAgent, "userAgent");
    Objects.requireNonNull(transportFactory, "transportFactory");
    interceptors = List.copyOf(Objects.requireNonNull(interceptors, "interceptors"));
    Objects.requireNonNull(compressorRegistry, "compressorRegistry");
    Objects.requireNonNull(decompressorRegistry, "decompressorRegistry");
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(backoffRandom, "backoffRandom");
    if (idleTimeoutNanos <= 0) {
      throw new IllegalArgumentException(
          "idleTimeoutNanos must be positive, was " + idleTimeoutNanos);
    }
    if (maxInboundMessageSize < 0) {
      throw new IllegalArgumentException(
          "maxInboundMessageSize must be >= 0, was " + maxInboundMessageSize);
    }
  }
}
