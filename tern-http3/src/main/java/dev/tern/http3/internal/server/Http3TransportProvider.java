package dev.tern.http3.internal.server;

import dev.tern.TlsServerCredentials;
import dev.tern.http3.internal.common.QuicTls;
import dev.tern.netty.internal.server.Http3Transport;
import dev.tern.netty.internal.server.ServerOptions;
import java.util.Objects;

/**
 * tern-http3's side of the seam {@code NettyServerBuilder.enableHttp3()} looks up with {@link
 * java.util.ServiceLoader}. Stateless; thread-safe.
 */
public final class Http3TransportProvider implements Http3Transport {
  /** For {@link java.util.ServiceLoader}. */
  public Http3TransportProvider() {}

  @Override
  public Endpoint newEndpoint(ServerOptions options, TlsServerCredentials credentials) {
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(credentials, "credentials");
    return new Http3Endpoint(options, QuicTls.forServer(credentials));
  }
}
