package dev.tern.netty;

import dev.tern.TlsChannelCredentials;
import dev.tern.TlsServerCredentials;
import dev.tern.tls.PemFiles;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * Starting points for the Netty {@code SslContext}s gRPC needs: TLS 1.3 or 1.2, the cipher suites
 * HTTP/2 allows, and ALPN offering only {@code h2}. The provider is OpenSSL when netty-tcnative
 * (for example {@code io.netty:netty-tcnative-boringssl-static}) is on the class path and supports
 * ALPN, the JDK's otherwise; the system property {@value #PROVIDER_PROPERTY} ({@code jdk} or {@code
 * openssl}) forces one. Add trust and key material, client authentication and so on to the returned
 * builder, then {@code build()}:
 *
 * <pre>{@code
 * SslContext server = NettySslContexts.forServer(key, certChain)
 *     .trustManager(clientCa).clientAuth(ClientAuth.REQUIRE).build();
 * SslContext client = NettySslContexts.forClient().trustManager(serverCa).build();
 * }</pre>
 *
 * <p>{@link #forServer(TlsServerCredentials)} and {@link #forClient(TlsChannelCredentials)} build
 * the contexts the transport-neutral credentials describe.
 *
 * <p>Stateless; thread-safe.
 */
public final class NettySslContexts {
  /** Forces the TLS implementation: {@code jdk} or {@code openssl}. */
  public static final String PROVIDER_PROPERTY = "dev.tern.netty.sslProvider";

  private NettySslContexts() {}

  /**
   * The TLS implementation new contexts use: {@link SslProvider#OPENSSL} when netty-tcnative is
   * available with ALPN, {@link SslProvider#JDK} otherwise, unless {@value #PROVIDER_PROPERTY}
   * forces one.
   *
   * @throws IllegalStateException if the property names an unknown provider, or OpenSSL while it is
   *     not available (with the reason it is not)
   */
  public static SslProvider provider() {
    String forced = System.getProperty(PROVIDER_PROPERTY);
    boolean openSsl = OpenSsl.isAvailable() && SslProvider.isAlpnSupported(SslProvider.OPENSSL);
    if (forced == null || forced.isEmpty()) {
      return openSsl ? SslProvider.OPENSSL : SslProvider.JDK;
    }
    switch (forced.toLowerCase(Locale.ROOT)) {
      case "jdk":
        return SslProvider.JDK;
      case "openssl":
        if (!openSsl) {
          throw new IllegalStateException(
              PROVIDER_PROPERTY
                  + "=openssl but OpenSSL is not available: "
                  + OpenSsl.unavailabilityCause());
        }
        return SslProvider.OPENSSL;
      default:
        throw new IllegalStateException(
            PROVIDER_PROPERTY + " must be jdk or openssl, was " + forced);
    }
  }

  /**
   * The server context {@code credentials} describe: their key (PEM or key manager), client
   * authentication and trust, on top of what {@link #configure} sets.
   *
   * @throws IllegalArgumentException if the context cannot be built (the message says why)
   */
  public static SslContext forServer(TlsServerCredentials credentials) {
    Objects.requireNonNull(credentials, "credentials");
    SslContextBuilder builder;
    if (credentials.getKeyManagers() != null) {
      builder =
          SslContextBuilder.forServer(
              first(credentials.getKeyManagers(), X509KeyManager.class, "keyManagers"));
    } else {
      List<X509Certificate> chain =
          PemFiles.certificates(credentials.getCertificateChain(), "certificate chain");
      PrivateKey key =
          PemFiles.privateKey(
              credentials.getPrivateKey(), credentials.getPrivateKeyPassword(), "private key");
      builder = SslContextBuilder.forServer(key, chain);
    }
    addTrust(builder, credentials.getTrustManagers(), credentials.getRootCertificates());
    builder.clientAuth(
        switch (credentials.getClientAuth()) {
          case NONE -> ClientAuth.NONE;
          case OPTIONAL -> ClientAuth.OPTIONAL;
          case REQUIRE -> ClientAuth.REQUIRE;
        });
    return build(configureServer(builder), credentials.toString());
  }

  /**
   * The client context {@code credentials} describe: their trust (the JDK's default CAs unless
   * given) and, for mutual TLS, key, on top of what {@link #configure} sets.
   *
   * @throws IllegalArgumentException if the context cannot be built (the message says why)
   */
  public static SslContext forClient(TlsChannelCredentials credentials) {
    return forClient(credentials, true);
  }

  /**
   * As {@link #forClient(TlsChannelCredentials)}, with no host-name check if {@code checkHostName}
   * is false (the credentials' trust manager is the whole check, as for per-address credentials):
   * Netty 4.2's client contexts check the host name by default, and the JDK's TLS applies the
   * context's setting whatever the engine is told later.
   */
  static SslContext forClient(TlsChannelCredentials credentials, boolean checkHostName) {
    Objects.requireNonNull(credentials, "credentials");
    SslContextBuilder builder = SslContextBuilder.forClient();
    if (!checkHostName) {
      builder.endpointIdentificationAlgorithm(null);
    }
    if (credentials.getKeyManagers() != null) {
      builder.keyManager(first(credentials.getKeyManagers(), X509KeyManager.class, "keyManagers"));
    } else if (credentials.getPrivateKey() != null) {
      builder.keyManager(
          PemFiles.privateKey(
              credentials.getPrivateKey(), credentials.getPrivateKeyPassword(), "private key"),
          PemFiles.certificates(credentials.getCertificateChain(), "certificate chain"));
    }
    addTrust(builder, credentials.getTrustManagers(), credentials.getRootCertificates());
    return build(configure(builder), credentials.toString());
  }

  private static void addTrust(
      SslContextBuilder builder, List<TrustManager> trustManagers, byte[] roots) {
    if (trustManagers != null) {
      builder.trustManager(first(trustManagers, X509TrustManager.class, "trustManagers"));
    } else if (roots != null) {
      builder.trustManager(PemFiles.certificates(roots, "root certificates"));
    }
  }

  private static SslContext build(SslContextBuilder builder, String what) {
    try {
      return builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "cannot build a TLS context for " + what + ": " + e.getMessage(), e);
    }
  }

  private static <T> T first(List<? super T> managers, Class<T> type, String name) {
    for (Object manager : managers) {
      if (type.isInstance(manager)) {
        return type.cast(manager);
      }
    }
    throw new IllegalArgumentException(name + " must include a " + type.getSimpleName());
  }

  /** A client builder trusting the JDK's default CAs unless {@code trustManager} is set. */
  public static SslContextBuilder forClient() {
    return configure(SslContextBuilder.forClient());
  }

  /** A server builder presenting {@code certChain} for {@code key}. */
  public static SslContextBuilder forServer(PrivateKey key, X509Certificate... certChain) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(certChain, "certChain");
    return configureServer(SslContextBuilder.forServer(key, certChain));
  }

  /** A server builder whose key and certificates come from {@code keyManagerFactory}. */
  public static SslContextBuilder forServer(KeyManagerFactory keyManagerFactory) {
    Objects.requireNonNull(keyManagerFactory, "keyManagerFactory");
    return configureServer(SslContextBuilder.forServer(keyManagerFactory));
  }

  /**
   * The cipher suites offered, those the provider supports kept: TLS 1.3's, then TLS 1.2's with
   * ephemeral key exchange and AEAD encryption, the only TLS 1.2 suites HTTP/2 allows (RFC 9113
   * section 9.2.2 and appendix A).
   */
  private static final List<String> HTTP2_CIPHERS =
      List.of(
          "TLS_AES_128_GCM_SHA256",
          "TLS_AES_256_GCM_SHA384",
          "TLS_CHACHA20_POLY1305_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
          "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");

  /**
   * Sets on {@code builder} what gRPC over TLS requires (protocols, ciphers, ALPN {@code h2}, the
   * provider), leaving the rest as it is.
   */
  public static SslContextBuilder configure(SslContextBuilder builder) {
    Objects.requireNonNull(builder, "builder");
    return builder
        .sslProvider(provider())
        .protocols("TLSv1.3", "TLSv1.2")
        .ciphers(HTTP2_CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
        .applicationProtocolConfig(
            new ApplicationProtocolConfig(
                ApplicationProtocolConfig.Protocol.ALPN,
                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                ApplicationProtocolNames.HTTP_2));
  }

  /**
   * Sets on a server's {@code builder} what {@link #configure} sets, but with ALPN offering {@code
   * h2} and then {@code http/1.1}: gRPC clients get HTTP/2, and browsers and HTTP tools may talk
   * HTTP/1.1 to the protocols served beside gRPC (see {@code NettyServerBuilder.httpProtocols}). A
   * server with no such protocol answers an HTTP/1.1 request with 415.
   */
  public static SslContextBuilder configureServer(SslContextBuilder builder) {
    return configure(builder)
        .applicationProtocolConfig(
            new ApplicationProtocolConfig(
                ApplicationProtocolConfig.Protocol.ALPN,
                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                ApplicationProtocolNames.HTTP_2,
                ApplicationProtocolNames.HTTP_1_1));
  }
}
