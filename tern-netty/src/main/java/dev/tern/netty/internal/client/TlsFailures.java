package dev.tern.netty.internal.client;

import io.netty.channel.Channel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import java.util.Locale;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;

/**
 * Words for the client's status when a connection fails because the two sides disagree about TLS:
 * the server expects TLS, the server speaks plaintext, the server requires a client certificate.
 *
 * <p>Stateless; thread-safe.
 */
final class TlsFailures {
  private TlsFailures() {}

  /** For a plaintext connection closed before the server's first SETTINGS arrived. */
  static final String SERVER_EXPECTS_TLS =
      "Connection closed before the server's HTTP/2 SETTINGS arrived: the server may expect TLS"
          + " (this channel uses plaintext)";

  /**
   * The description of a TLS failure on a client connection, naming the likely mismatch when the
   * failure shows one, else the failure itself.
   */
  static String describe(Channel channel, Throwable failure) {
    Throwable cause =
        failure instanceof DecoderException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof NotSslRecordException) {
      return "TLS handshake failed: the server speaks plaintext (its answer was not a TLS record)";
    }
    String message = String.valueOf(cause.getMessage());
    String lower = message.toLowerCase(Locale.ROOT);
    if (cause instanceof SSLException
        && (lower.contains("certificate_required") || lower.contains("bad_certificate"))
        && !sentCertificate(channel)) {
      return "TLS failed: client certificate required (the server asked for one and this channel"
          + " has none; configure the client's key manager): "
          + message;
    }
    return "TLS handshake failed: " + cause;
  }

  /** Whether this side presented a certificate in its TLS session. */
  private static boolean sentCertificate(Channel channel) {
    SslHandler ssl = channel.pipeline().get(SslHandler.class);
    if (ssl == null) {
      return false;
    }
    SSLSession session = ssl.engine().getSession();
    if (session == null) {
      session = ssl.engine().getHandshakeSession();
    }
    return session != null
        && session.getLocalCertificates() != null
        && session.getLocalCertificates().length > 0;
  }
}
