package dev.tern;

/**
 * How a server secures its connections, independent of the transport: {@link
 * InsecureServerCredentials} (plaintext) or {@link TlsServerCredentials}. Give them to {@link
 * Grpc#newServerBuilderForPort(int, ServerCredentials)}, which picks a transport that understands
 * them.
 *
 * <p>Credentials are immutable and thread-safe; one instance may configure any number of servers.
 * {@link #toString()} describes the kind and options (never key material), for error messages.
 */
public abstract class ServerCredentials {
  /** For the kinds above, and for transport-specific kinds that only their transport accepts. */
  protected ServerCredentials() {}
}
