package dev.tern;

/**
 * No security: the server accepts plaintext connections. For tests, for the in-process transport,
 * and for networks secured below gRPC. Immutable; thread-safe.
 */
public final class InsecureServerCredentials extends ServerCredentials {
  private static final InsecureServerCredentials INSTANCE = new InsecureServerCredentials();

  private InsecureServerCredentials() {}

  /** The plaintext credentials. */
  public static ServerCredentials create() {
    return INSTANCE;
  }

  @Override
  public String toString() {
    return "InsecureServerCredentials";
  }
}
