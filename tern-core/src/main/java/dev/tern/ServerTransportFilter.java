package dev.tern;

import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Observes server connections as they come and go, and may add attributes that the calls of a
 * connection see through {@link ServerCall#getAttributes()}. Called from transport threads;
 * implementations must be thread-safe.
 *
 * <p>A filter that configures connections (an xDS-enabled server choosing a filter chain, say)
 * overrides {@link #transportReady(Attributes, Connection)}: it gets a {@link Connection} handle
 * with which it may refuse the connection at once, or keep it to drain the connection later when
 * the configuration it was given goes away. Per-connection configuration travels in the returned
 * attributes, where a {@link ServerInterceptor} finds it through {@link
 * ServerCall#getAttributes()}.
 */
public abstract class ServerTransportFilter {
  /** For subclasses. */
  protected ServerTransportFilter() {}

  /**
   * A connection was just accepted, before a byte of it is read or written: whether the server
   * serves it at all. Returning false closes it at once without a byte sent (no TLS handshake, no
   * HTTP/2 SETTINGS), so the client sees the connection fail as if nothing listened; the filters
   * after this one are not asked, and the connection reaches no {@code transportReady}. For a
   * server that must not answer yet (an xDS-enabled server without its Listener, gRFC A36). The
   * Netty transport asks it; a transport that cannot (in-process) serves every connection and
   * leaves refusals to {@link Connection#refuse}. Default: true.
   */
  public boolean acceptConnection(SocketAddress local, SocketAddress remote) {
    return true;
  }

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
   * A connection is ready, with a handle on it. The server calls this one; by default it calls
   * {@link #transportReady(Attributes)}. A filter that calls {@link Connection#refuse} here should
   * return at once: the filters after it do not see the connection, and none of its calls is
   * served.
   */
  public Attributes transportReady(Attributes transportAttrs, Connection connection) {
    return transportReady(transportAttrs);
  }

  /**
   * A connection is gone. {@code transportAttrs} are those returned from {@link #transportReady}
   * (or the transport's own if it never became ready).
   */
  public void transportTerminated(Attributes transportAttrs) {}

  /**
   * One accepted connection, as {@link #transportReady(Attributes, Connection)} hands it over.
   * Thread-safe; a filter may keep it for the connection's lifetime (no longer: let go of it in
   * {@link #transportTerminated}).
   */
  public interface Connection {
    /**
     * Closes the connection now, failing every call on it with {@code reason}; a call that still
     * arrives is failed with it too. For a connection the server must not serve at all (no
     * configuration matches it, the server is not serving).
     */
    void refuse(Status reason);

    /**
     * Drains the connection gracefully: the peer is told to go away (HTTP/2: GOAWAY), calls in
     * flight continue, new calls are refused; once the grace period is over, what is still open is
     * closed with UNAVAILABLE. Calling it again, or after {@link #refuse}, changes nothing.
     *
     * @param gracePeriod at least 0
     */
    void drain(long gracePeriod, TimeUnit unit);
  }
}
