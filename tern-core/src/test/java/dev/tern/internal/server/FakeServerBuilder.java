package dev.tern.internal.server;

import dev.tern.CompressorRegistry;
import dev.tern.DecompressorRegistry;
import dev.tern.HandlerRegistry;
import dev.tern.ServerInterceptor;
import dev.tern.ServerServiceDefinition;
import dev.tern.ServerTransportFilter;
import dev.tern.spi.TransportServer;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * An {@link AbstractServerBuilder} over a {@link FakeTransportServer}, which exposes the protected
 * option getters so tests can check them. Not thread-safe.
 */
public final class FakeServerBuilder extends AbstractServerBuilder<FakeServerBuilder> {
  public final FakeTransportServer transportServer = new FakeTransportServer();

  @Override
  protected TransportServer buildTransportServer() {
    return transportServer;
  }

  public List<ServerServiceDefinition> exposedServices() {
    return services();
  }

  public HandlerRegistry exposedFallbackHandlerRegistry() {
    return fallbackHandlerRegistry();
  }

  public Executor exposedExecutor() {
    return executor();
  }

  public boolean exposedIsDirectExecutor() {
    return isDirectExecutor();
  }

  public List<ServerInterceptor> exposedInterceptors() {
    return interceptors();
  }

  public List<ServerTransportFilter> exposedTransportFilters() {
    return transportFilters();
  }

  public int exposedMaxInboundMessageSize() {
    return maxInboundMessageSize();
  }

  public int exposedMaxInboundMetadataSize() {
    return maxInboundMetadataSize();
  }

  public long exposedHandshakeTimeoutNanos() {
    return handshakeTimeoutNanos();
  }

  public CompressorRegistry exposedCompressorRegistry() {
    return compressorRegistry();
  }

  public DecompressorRegistry exposedDecompressorRegistry() {
    return decompressorRegistry();
  }
}
