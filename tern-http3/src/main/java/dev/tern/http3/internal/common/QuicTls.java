package dev.tern.http3.internal.common;

import dev.tern.TlsChannelCredentials;
import dev.tern.TlsServerCredentials;
import dev.tern.tls.PemFiles;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.ssl.ClientAuth;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * QUIC's TLS 1.3 contexts (BoringSSL inside Netty's QUIC codec) from the same credentials HTTP/2's
 * TLS is built from: for a server, its {@link TlsServerCredentials} (key and certificate chain, PEM
 * or key manager, client authentication and trust); for a client, its {@link TlsChannelCredentials}
 * (trust roots or trust manager, and a client certificate when given). ALPN {@code h3} (RFC 9114
 * section 3.1) both ways. Stateless; thread-safe.
 */
public final class QuicTls {
  /** HTTP/3's ALPN token. */
  public static final String ALPN = "h3";

  private QuicTls() {}

  /**
   * @throws IllegalArgumentException if the credentials cannot make a context (the message says
   *     why)
   */
  public static QuicSslContext forServer(TlsServerCredentials credentials) {
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
    return build(builder, credentials);
  }

  /**
   * A client context: the server's certificate is checked against {@code credentials}' trust (the
   * JDK's trusted CAs when they name none, or when {@code credentials} is null) and, with {@code
   * checkHostName}, against the host the connection is for; the client certificate is sent when the
   * credentials have one.
   *
   * @throws IllegalArgumentException if the credentials cannot make a context (the message says
   *     why)
   */
  public static QuicSslContext forClient(TlsChannelCredentials credentials, boolean checkHostName) {
    QuicSslContextBuilder builder = QuicSslContextBuilder.forClient();
    if (checkHostName) {
      builder.endpointIdentificationAlgorithm("HTTPS");
    }
    if (credentials == null) {
      return build(builder.trustManager(defaultTrust()), "the JDK's trusted CAs");
    }
    List<KeyManager> keyManagers = credentials.getKeyManagers();
    if (keyManagers != null) {
      builder.keyManager(keyManagers.get(0), null);
    } else if (credentials.getCertificateChain() != null) {
      builder.keyManager(
          PemFiles.privateKey(
              credentials.getPrivateKey(), credentials.getPrivateKeyPassword(), "private key"),
          null,
          PemFiles.certificates(credentials.getCertificateChain(), "certificate chain")
              .toArray(new X509Certificate[0]));
    }
    List<TrustManager> trustManagers = credentials.getTrustManagers();
    if (trustManagers != null) {
      builder.trustManager(trustManagers.get(0));
    } else if (credentials.getRootCertificates() != null) {
      builder.trustManager(
          PemFiles.certificates(credentials.getRootCertificates(), "root certificates")
              .toArray(new X509Certificate[0]));
    } else {
      builder.trustManager(defaultTrust());
    }
    return build(builder, credentials);
  }

  private static TrustManagerFactory defaultTrust() {
    try {
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init((KeyStore) null);
      return factory;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK's trusted CAs cannot be loaded", e);
    }
  }

  private static QuicSslContext build(QuicSslContextBuilder builder, Object credentials) {
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
