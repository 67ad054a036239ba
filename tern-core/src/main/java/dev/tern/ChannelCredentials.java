package dev.tern;

/**
 * How a channel secures its connections, independent of the transport: {@link
 * InsecureChannelCredentials} (plaintext), {@link TlsChannelCredentials}, or {@link
 * CompositeChannelCredentials} (either, plus {@link CallCredentials} for every call). Give them to
 * {@link Grpc#newChannelBuilder(String, ChannelCredentials)}, which picks a transport that
 * understands them.
 *
 * <p>Credentials are immutable and thread-safe; one instance may configure any number of channels.
 * {@link #toString()} describes the kind and options (never key material), for error messages.
 */
public abstract class ChannelCredentials {
  /** For the kinds above, and for transport-specific kinds that only their transport accepts. */
  protected ChannelCredentials() {}
}
