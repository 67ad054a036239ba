package dev.tern.netty;

import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;

/**
 * Starting points for the Netty {@code SslContext}s gRPC needs: TLS 1.3 or 1.2, the cipher suites
 * HTTP/2 allows, and ALPN offering only {@code h2}. The provider is OpenSSL when netty-tcnative is
 * on the class path and supports ALPN, the JDK's otherwise. Add trust and key material, client
 * authentication and so on to the returned builder, then {@code build()}:
 *
 * <pre>{@code
 * SslContext server = NettySslContexts.forServer(key, certChain)
 *     .trustManager(clientCa).clientAuth(ClientAuth.REQUIRE).build();
 * SslContext client = NettySslContexts.forClient().trustManager(serverCa).build();
 * }</pre>
 *
 * <p>Stateless; thread-safe.
 */
public final class NettySslContexts {
  private NettySslContexts() {}

  /** A client builder trusting the JDK's default CAs unless {@code trustManager} is set. */
  public static SslContextBuilder forClient() {
    return configure(SslContextBuilder.forClient());
  }

  /** A server builder presenting {@code certChain} for {@code key}. */
  public static SslContextBuilder forServer(PrivateKey key, X509Certificate... certChain) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(certChain, "certChain");
    return configure(SslContextBuilder.forServer(key, certChain));
  }

  /** A server builder whose key and certificates come from {@code keyManagerFactory}. */
  public static SslContextBuilder forServer(KeyManagerFactory keyManagerFactory) {
    Objects.requireNonNull(keyManagerFactory, "keyManagerFactory");
    return configure(SslContextBuilder.forServer(keyManagerFactory));
  }

  /**
   * Sets on {@code builder} what gRPC over TLS requires (protocols, ciphers, ALPN {@code h2}, the
   * provider), leaving the rest as it is.
   */
  public static SslContextBuilder configure(SslContextBuilder builder) {
    Objects.requireNonNull(builder, "builder");
    SslProvider provider =
        OpenSsl.isAvailable() && SslProvider.isAlpnSupported(SslProvider.OPENSSL)
            ? SslProvider.OPENSSL
            : SslProvider.JDK;
    return builder
        .sslProvider(provider)
        .protocols("TLSv1.3", "TLSv1.2")
        .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
        .applicationProtocolConfig(
            new ApplicationProtocolConfig(
                ApplicationProtocolConfig.Protocol.ALPN,
                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                ApplicationProtocolNames.HTTP_2));
  }
}
