package dev.tern.netty;

import dev.tern.InsecureServerCredentials;
import dev.tern.PerConnectionServerCredentials;
import dev.tern.ServerBuilder;
import dev.tern.ServerCredentials;
import dev.tern.ServerProvider;
import dev.tern.TlsServerCredentials;
import dev.tern.netty.internal.io.NettyProperties;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Lets {@code ServerBuilder.forPort(port)}, {@code Grpc.newServerBuilderForPort(port, creds)} and
 * {@code ServerProvider.select(address, creds)} build a {@link NettyServerBuilder}: plaintext for
 * {@link InsecureServerCredentials}, TLS for {@link TlsServerCredentials} (every feature), and
 * {@link PerConnectionServerCredentials} whose fallback is one of these. Priority 5. Stateless;
 * thread-safe.
 */
public final class NettyServerProvider extends ServerProvider {
  static {
    // Before any Netty class loads: Tern's defaults for Netty's properties (see NettyProperties).
    NettyProperties.applyDefaults();
  }

  /** For {@link java.util.ServiceLoader}. */
  public NettyServerProvider() {}

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public int priority() {
    return 5;
  }

  @Override
  public NewServerBuilderResult newServerBuilderForPort(int port, ServerCredentials credentials) {
    return newServerBuilderForAddress(new InetSocketAddress(port), credentials);
  }

  /**
   * As {@link #newServerBuilderForPort}, bound to {@code address} ({@link
   * NettyServerBuilder#forAddress}).
   */
  @Override
  public NewServerBuilderResult newServerBuilderForAddress(
      SocketAddress address, ServerCredentials credentials) {
    if (credentials instanceof PerConnectionServerCredentials perConnection) {
      NewServerBuilderResult result = newServerBuilderForAddress(address, perConnection.fallback());
      if (result.getServerBuilder() instanceof NettyServerBuilder netty) {
        netty.perConnectionCredentials(perConnection);
      }
      return result;
    }
    if (credentials instanceof InsecureServerCredentials) {
      return NewServerBuilderResult.builder(NettyServerBuilder.forAddress(address));
    }
    if (credentials instanceof TlsServerCredentials tls) {
      return NewServerBuilderResult.builder(
          NettyServerBuilder.forAddress(address).tlsCredentials(tls));
    }
    return NewServerBuilderResult.unsupported(
        "the Netty transport understands InsecureServerCredentials and TlsServerCredentials, not "
            + credentials.getClass().getName());
  }

  @Override
  public ServerBuilder<?> builderForPort(int port) {
    return NettyServerBuilder.forPort(port);
  }
}
