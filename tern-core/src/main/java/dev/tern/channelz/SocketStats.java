package dev.tern.channelz;

import java.net.SocketAddress;
import java.security.cert.Certificate;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * A snapshot of a socket: a connection (client or server side) or a listening socket (whose counts
 * are all zero).
 *
 * @param local the local address, or null if not known (not connected yet)
 * @param remote the peer's address, or null (a listening socket, not connected yet)
 * @param streamsStarted streams opened by either side
 * @param streamsSucceeded streams that ended with an OK status: received (client) or sent with the
 *     trailers (server)
 * @param streamsFailed the other streams that ended
 * @param messagesSent messages sent
 * @param messagesReceived messages received
 * @param keepAlivesSent keepalive PINGs sent
 * @param lastLocalStreamCreated when this side last opened a stream, or null
 * @param lastRemoteStreamCreated when the peer last opened a stream, or null
 * @param lastMessageSent when a message was last sent, or null
 * @param lastMessageReceived when a message was last received, or null
 * @param localFlowControlWindow the connection-level window the peer granted this side (bytes it
 *     may send now), or -1 if not known
 * @param remoteFlowControlWindow the connection-level window this side granted the peer, or -1
 * @param tls the TLS session, or null for a plaintext (or listening) socket
 * @param options the socket's options (name to value, as text), in name order; empty if not known
 */
public record SocketStats(
    SocketAddress local,
    SocketAddress remote,
    long streamsStarted,
    long streamsSucceeded,
    long streamsFailed,
    long messagesSent,
    long messagesReceived,
    long keepAlivesSent,
    Instant lastLocalStreamCreated,
    Instant lastRemoteStreamCreated,
    Instant lastMessageSent,
    Instant lastMessageReceived,
    long localFlowControlWindow,
    long remoteFlowControlWindow,
    Tls tls,
    Map<String, String> options) {

  /** Copies {@code options}, sorted by name. */
  public SocketStats {
    options = Collections.unmodifiableMap(new TreeMap<>(options));
  }

  /** A listening socket at {@code local}: no streams, no messages. */
  public static SocketStats listening(SocketAddress local) {
    return new SocketStats(
        local, null, 0, 0, 0, 0, 0, 0, null, null, null, null, -1, -1, null, Map.of());
  }

  /**
   * A socket's TLS session.
   *
   * @param cipherSuite the negotiated cipher suite's standard name
   * @param localCertificate the certificate this side presented, or null
   * @param remoteCertificate the peer's certificate, or null
   */
  public record Tls(
      String cipherSuite, Certificate localCertificate, Certificate remoteCertificate) {}
}
