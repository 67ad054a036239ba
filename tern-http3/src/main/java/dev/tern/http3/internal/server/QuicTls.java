package dev.tern.http3.internal.server;

import dev.tern.TlsServerCredentials;
import dev.tern.tls.PemFiles;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.ssl.ClientAuth;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;

/**
 * QUIC's TLS 1.3 context (BoringSSL inside Netty's QUIC codec) from the same {@link
 * TlsServerCredentials} the server's HTTP/2 TLS is built from: the same key and certificate chain
 * (PEM or key manager), client authentication and trust, and ALPN {@code h3} (RFC 9114 section
 * 3.1). Stateless; thread-safe.
 */
final class QuicTls {
  /** HTTP/3's ALPN token. */
  static final String ALPN = "h3";

  private QuicTls() {}

  /**
   * @throws IllegalArgumentException if the credentials cannot make a context (the message says
   *     why)
   */
  static QuicSslContext forServer(TlsServerCredentials credentials) {
    QuicSslContextBuilder builder;
    List<KeyManager> keyManagers = credentials.getKeyManagers();
    if (keyManagers != null) {
      builder = QuicSslContextBuilder.forServer(keyManagers.get(0), null);
    } else {
      List<X509Certificate> chain =
          PemFiles.certificates(credentials.getCertificateChain(), "certificate chain");
      PrivateKey key =
          PemFiles.privateKey(
              credentials.getPrivateKey(), credentials.getPrivateKeyPassword(), "private key");
      builder = QuicSslContextBuilder.forServer(key, null, chain.toArray(new X509Certificate[0]));
    }
    List<TrustManager> trustManagers = credentials.getTrustManagers();
    if (trustManagers != null) {
      builder.trustManager(trustManagers.get(0));
    } else if (credentials.getRootCertificates() != null) {
      builder.trustManager(
          PemFiles.certificates(credentials.getRootCertificates(), "root certificates")
              .toArray(new X509Certificate[0]));
    }
    builder.clientAuth(
        switch (credentials.getClientAuth()) {
          case NONE -> ClientAuth.NONE;
          case OPTIONAL -> ClientAuth.OPTIONAL;
          case REQUIRE -> ClientAuth.REQUIRE;
        });
    // 0-RTT stays off (the default): early data can be replayed, and gRPC calls are not known to
    // be idempotent.
    builder.applicationProtocols(ALPN);
    try {
      return builder.build();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "no QUIC TLS context from " + credentials + ": " + e.getMessage(), e);
    }
  }
}
