package dev.tern;

/**
 * No security: calls travel in plaintext (HTTP/2 with prior knowledge on Netty). For tests, for the
 * in-process transport, and for networks secured below gRPC. Immutable; thread-safe.
 */
public final class InsecureChannelCredentials extends ChannelCredentials {
  private static final InsecureChannelCredentials INSTANCE = new InsecureChannelCredentials();

  private InsecureChannelCredentials() {}

  /** The plaintext credentials. */
  public static ChannelCredentials create() {
    return INSTANCE;
  }

  @Override
  public String toString() {
    return "InsecureChannelCredentials";
  }
}
