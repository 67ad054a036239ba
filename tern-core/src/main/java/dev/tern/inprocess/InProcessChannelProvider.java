package dev.tern.inprocess;

import dev.tern.ChannelCredentials;
import dev.tern.InsecureChannelCredentials;
import dev.tern.ManagedChannelBuilder;
import dev.tern.ManagedChannelProvider;

/**
 * Lets {@code ManagedChannelBuilder.forTarget("inprocess:NAME")} build an {@link
 * InProcessChannelBuilder} for the server named {@code NAME}. Other targets and {@code host:port}
 * addresses are left to other transports. Always available; priority 5. Stateless; thread-safe.
 */
public final class InProcessChannelProvider extends ManagedChannelProvider {
  /** The scheme of in-process targets. */
  static final String SCHEME = "inprocess:";

  /** For {@link java.util.ServiceLoader}. */
  public InProcessChannelProvider() {}

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public int priority() {
    return 5;
  }

  /**
   * An {@link InProcessChannelBuilder} for {@code inprocess:NAME}, or null for any other target.
   *
   * @throws IllegalArgumentException if the name after the scheme is empty
   */
  @Override
  public ManagedChannelBuilder<?> builderForTarget(String target) {
    if (target == null || !target.startsWith(SCHEME)) {
      return null;
    }
    return InProcessChannelBuilder.forName(target.substring(SCHEME.length()));
  }

  /**
   * Accepts {@link InsecureChannelCredentials} only: calls never leave the JVM, so there is nothing
   * for TLS to protect, and a request for TLS is refused rather than silently dropped.
   */
  @Override
  public NewChannelBuilderResult newChannelBuilder(String target, ChannelCredentials credentials) {
    ManagedChannelBuilder<?> builder = builderForTarget(target);
    if (builder == null) {
      return null;
    }
    if (!(credentials instanceof InsecureChannelCredentials)) {
      return NewChannelBuilderResult.unsupported(
          "the in-process transport has no TLS (its calls never leave the JVM); use"
              + " InsecureChannelCredentials");
    }
    return NewChannelBuilderResult.builder(builder);
  }

  /** Always null: in-process servers have names, not ports. */
  @Override
  public ManagedChannelBuilder<?> builderForAddress(String host, int port) {
    return null;
  }
}
