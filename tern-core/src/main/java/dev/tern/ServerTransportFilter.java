package dev.tern;

/**
 * Observes server connections as they come and go, and may add attributes that the calls of a
 * connection see through {@link ServerCall#getAttributes()}. Called from transport threads;
 * implementations must be thread-safe.
 */
public abstract class ServerTransportFilter {
  /** For subclasses. */
  protected ServerTransportFilter() {}

  /**
   * A connection is ready. {@code transportAttrs} holds {@link Grpc#TRANSPORT_ATTR_REMOTE_ADDR},
   * {@link Grpc#TRANSPORT_ATTR_LOCAL_ADDR} and, with TLS, {@link Grpc#TRANSPORT_ATTR_SSL_SESSION}.
   * Returns the attributes the connection's calls will see (default: unchanged). Filters run in the
   * order they were added, each given the previous one's result.
   */
  public Attributes transportReady(Attributes transportAttrs) {
    return transportAttrs;
  }

  /**
   * A connection is gone. {@code transportAttrs} are those returned from {@link #transportReady}
   * (or the transport's own if it never became ready).
   */
  public void transportTerminated(Attributes transportAttrs) {}
}
