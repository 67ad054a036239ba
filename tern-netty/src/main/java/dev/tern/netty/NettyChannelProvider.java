package dev.tern.netty;

import dev.tern.ChannelCredentials;
import dev.tern.InsecureChannelCredentials;
import dev.tern.ManagedChannelBuilder;
import dev.tern.ManagedChannelProvider;
import dev.tern.NameResolverProvider;
import dev.tern.NameResolverRegistry;
import dev.tern.PerAddressChannelCredentials;
import dev.tern.TlsChannelCredentials;
import dev.tern.netty.internal.io.NettyProperties;
import java.net.SocketAddress;
import java.util.Collection;

/**
 * Lets {@code ManagedChannelBuilder.forAddress(host, port)} and {@code forTarget(target)} build a
 * {@link NettyChannelBuilder} for every target whose addresses it can reach. Priority 6, above the
 * in-process transport, for the targets both could claim. With credentials ({@code
 * Grpc.newChannelBuilder}): plaintext for {@link InsecureChannelCredentials}, TLS for {@link
 * TlsChannelCredentials} (every feature), and {@link PerAddressChannelCredentials} whose fallback
 * is one of these. Stateless; thread-safe.
 */
public final class NettyChannelProvider extends ManagedChannelProvider {
  static {
    // Before any Netty class loads: Tern's defaults for Netty's properties (see NettyProperties).
    NettyProperties.applyDefaults();
  }

  /** For {@link java.util.ServiceLoader}. */
  public NettyChannelProvider() {}

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public int priority() {
    return 6;
  }

  /**
   * A builder for {@code target} unless its resolver produces only addresses this transport cannot
   * reach (such as {@code inprocess:}); a malformed target also gets a builder, whose {@code
   * build()} says what is wrong with it.
   */
  @Override
  public ManagedChannelBuilder<?> builderForTarget(String target) {
    if (target == null) {
      return null;
    }
    NameResolverProvider resolver =
        NameResolverRegistry.getDefaultRegistry().providerForTarget(target);
    if (resolver != null && !reachable(resolver.getProducedSocketAddressTypes())) {
      return null;
    }
    return NettyChannelBuilder.forTarget(target);
  }

  private static boolean reachable(Collection<Class<? extends SocketAddress>> produced) {
    for (Class<? extends SocketAddress> type : produced) {
      for (Class<? extends SocketAddress> supported : NettyChannelBuilder.SUPPORTED_ADDRESS_TYPES) {
        if (supported.isAssignableFrom(type)) {
          return true;
        }
      }
    }
    return false;
  }

  @Override
  public ManagedChannelBuilder<?> builderForAddress(String host, int port) {
    return NettyChannelBuilder.forAddress(host, port);
  }

  @Override
  public NewChannelBuilderResult newChannelBuilder(String target, ChannelCredentials credentials) {
    ManagedChannelBuilder<?> builder = builderForTarget(target);
    return builder == null ? null : secure((NettyChannelBuilder) builder, credentials);
  }

  @Override
  public NewChannelBuilderResult newChannelBuilderForAddress(
      String host, int port, ChannelCredentials credentials) {
    return secure(NettyChannelBuilder.forAddress(host, port), credentials);
  }

  private static NewChannelBuilderResult secure(
      NettyChannelBuilder builder, ChannelCredentials credentials) {
    if (credentials instanceof PerAddressChannelCredentials perAddress) {
      NewChannelBuilderResult result = secure(builder, perAddress.fallback());
      if (result.getChannelBuilder() != null) {
        builder.perAddressCredentials(perAddress);
      }
      return result;
    }
    if (credentials instanceof InsecureChannelCredentials) {
      return NewChannelBuilderResult.builder(builder.usePlaintext());
    }
    if (credentials instanceof TlsChannelCredentials tls) {
      return NewChannelBuilderResult.builder(builder.tlsCredentials(tls));
    }
    return NewChannelBuilderResult.unsupported(
        "the Netty transport understands InsecureChannelCredentials and TlsChannelCredentials, not "
            + credentials.getClass().getName());
  }
}
