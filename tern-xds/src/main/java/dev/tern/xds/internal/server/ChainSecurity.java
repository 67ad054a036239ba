package dev.tern.xds.internal.server;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.TlsServerCredentials;
import dev.tern.xds.Bootstrap;
import dev.tern.xds.XdsTlsContext;
import dev.tern.xds.internal.security.CertificateProviders;
import dev.tern.xds.internal.security.FileWatcherProvider;
import java.util.HashMap;
import java.util.Map;

/**
 * The TLS of one server's filter chains (A29): the credentials each chain's DownstreamTlsContext
 * describes, on the bootstrap's certificate provider instances, which it holds until {@link
 * #close}. One credentials instance per distinct context, so that the transport builds its TLS
 * context once. Thread-safe: synchronized.
 */
final class ChainSecurity {
  private final Bootstrap bootstrap;

  @GuardedBy("this")
  private final Map<String, FileWatcherProvider> providers = new HashMap<>();

  @GuardedBy("this")
  private final Map<XdsTlsContext, TlsServerCredentials> credentials = new HashMap<>();

  ChainSecurity(Bootstrap bootstrap) {
    this.bootstrap = bootstrap;
  }

  /** The credentials of a chain with {@code tls}, or null for a chain without (the fallback). */
  synchronized TlsServerCredentials credentialsFor(XdsTlsContext tls) {
    if (tls == null) {
      return null;
    }
    TlsServerCredentials known = credentials.get(tls);
    if (known != null) {
      return known;
    }
    TlsServerCredentials.Builder builder =
        TlsServerCredentials.newBuilder().keyManager(provider(tls.identityInstance()).keyManager());
    if (tls.validationInstance() != null) {
      builder
          .trustManager(provider(tls.validationInstance()).trustManager())
          .clientAuth(
              tls.requireClientCertificate()
                  ? TlsServerCredentials.ClientAuth.REQUIRE
                  : TlsServerCredentials.ClientAuth.OPTIONAL);
    }
    TlsServerCredentials built = builder.build();
    credentials.put(tls, built);
    return built;
  }

  @GuardedBy("this")
  private FileWatcherProvider provider(String name) {
    return providers.computeIfAbsent(name, n -> CertificateProviders.acquire(bootstrap, n));
  }

  /** Lets go of the provider instances. */
  synchronized void close() {
    for (FileWatcherProvider provider : providers.values()) {
      CertificateProviders.release(provider);
    }
    providers.clear();
    credentials.clear();
  }
}
