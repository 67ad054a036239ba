package dev.tern.netty.internal.server;

import dev.tern.Attributes;
import dev.tern.PerConnectionServerCredentials;
import dev.tern.TlsServerCredentials;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslContext;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.function.Function;

/**
 * Asks {@link PerConnectionServerCredentials} what each accepted connection uses, and builds (once
 * per credentials instance) the TLS context for it. Thread-safe: the cache is synchronized; the
 * credentials are thread-safe by contract.
 */
public final class ConnectionTls {
  private final PerConnectionServerCredentials credentials;

  /** Keyed by identity (credentials do not override equals); entries go with their credentials. */
  private final Map<TlsServerCredentials, SslContext> contexts = new WeakHashMap<>();

  private final Function<TlsServerCredentials, SslContext> contextBuilder;

  /**
   * @param contextBuilder builds the TLS context of chosen credentials ({@code
   *     NettySslContexts::forServer})
   */
  public ConnectionTls(
      PerConnectionServerCredentials credentials,
      Function<TlsServerCredentials, SslContext> contextBuilder) {
    this.credentials = Objects.requireNonNull(credentials, "credentials");
    this.contextBuilder = Objects.requireNonNull(contextBuilder, "contextBuilder");
  }

  /** What one accepted connection uses: its TLS context (null: the server's own) and attributes. */
  record Choice(SslContext sslContext, Attributes attributes) {}

  /**
   * The choice for the accepted {@code channel}.
   *
   * @throws IllegalArgumentException if the chosen credentials cannot make a TLS context
   */
  Choice choose(Channel channel) {
    PerConnectionServerCredentials.Selection selection =
        credentials.select(channel.localAddress(), channel.remoteAddress());
    TlsServerCredentials tls = selection.tls();
    return new Choice(tls == null ? null : contextFor(tls), selection.attributes());
  }

  private SslContext contextFor(TlsServerCredentials tls) {
    synchronized (contexts) {
      return contexts.computeIfAbsent(tls, contextBuilder);
    }
  }
}
