package dev.tern.xds.internal.security;

import dev.tern.PerAddressChannelCredentials;
import dev.tern.TlsChannelCredentials;
import dev.tern.xds.Bootstrap;
import dev.tern.xds.XdsTlsContext;

/**
 * One version of a cluster's client TLS (A29), which {@link ClusterTls} holds while the cluster has
 * it: credentials whose key manager presents the identity instance's current key and certificate
 * (mTLS; none without an identity instance) and whose trust manager checks the server against the
 * validation instance's current roots (or the JDK's trusted roots, {@code system_root_certs}, A82)
 * and then the cluster's SAN matchers (or the server name it sends, A101), with the server name the
 * cluster chooses for each endpoint. It holds its certificate provider instances until {@link
 * #close}; files rotated on disk reach new handshakes through them. Thread-safe: immutable apart
 * from the providers, which are thread-safe.
 */
final class UpstreamTls implements AutoCloseable {
  private final XdsTlsContext context;
  private final FileWatcherProvider identity;
  private final FileWatcherProvider roots; // null: the system's roots (A82)
  private final TlsChannelCredentials credentials;
  private final String serverName;
  private final boolean hostSni; // auto_host_sni applies

  private UpstreamTls(
      XdsTlsContext context,
      FileWatcherProvider identity,
      FileWatcherProvider roots,
      boolean sniEnabled) {
    this.context = context;
    this.identity = identity;
    this.roots = roots;
    // A101: the endpoint's host name with auto_host_sni (see serverName(String)), else sni; no sni
    // means no server name at all.
    this.hostSni = sniEnabled && context.autoHostSni();
    this.serverName =
        sniEnabled
            ? (context.sni().isEmpty()
                ? PerAddressChannelCredentials.NO_SERVER_NAME
                : context.sni())
            : null;
    TlsChannelCredentials.Builder builder =
        TlsChannelCredentials.newBuilder()
            .trustManager(
                new SanCheckingTrustManager(
                    roots != null ? roots.trustManager() : SystemRoots.trustManager(),
                    context.subjectAltNames(),
                    sniEnabled && context.autoSniSanValidation()));
    if (identity != null) {
      builder.keyManager(identity.keyManager());
    }
    this.credentials = builder.build();
  }

  /**
   * The TLS of a cluster with {@code context}, on the instances of {@code bootstrap}.
   *
   * @param sniEnabled whether the context's server-name settings apply (A101's switch)
   * @throws IllegalArgumentException if the bootstrap lacks an instance the context names
   */
  static UpstreamTls open(Bootstrap bootstrap, XdsTlsContext context, boolean sniEnabled) {
    FileWatcherProvider roots =
        context.validationInstance() == null
            ? null
            : CertificateProviders.acquire(bootstrap, context.validationInstance());
    FileWatcherProvider identity = null;
    try {
      if (context.identityInstance() != null) {
        identity = CertificateProviders.acquire(bootstrap, context.identityInstance());
      }
      return new UpstreamTls(context, identity, roots, sniEnabled);
    } catch (RuntimeException e) {
      if (roots != null) {
        CertificateProviders.release(roots);
      }
      if (identity != null) {
        CertificateProviders.release(identity);
      }
      throw e;
    }
  }

  /** The cluster's TLS context these credentials follow. */
  XdsTlsContext context() {
    return context;
  }

  /**
   * The credentials of a new connection to the cluster: always the same instance, so that the
   * transport builds its TLS context once.
   *
   * @throws IllegalStateException if the instances have no usable roots, or no key and certificate
   *     for mTLS, yet (the message names the instance and the problem)
   */
  TlsChannelCredentials credentials() {
    String problem = roots == null ? null : roots.rootsProblem();
    if (problem == null && identity != null) {
      problem = identity.keysProblem();
    }
    if (problem != null) {
      throw new IllegalStateException("xDS TLS of the cluster is not ready: " + problem);
    }
    return credentials;
  }

  /**
   * The TLS server name of a new connection to an endpoint, as {@link
   * PerAddressChannelCredentials#serverNameFor} says: null for the channel's authority (A101 off),
   * the endpoint's host name with {@code auto_host_sni}, else the cluster's {@code sni}, else
   * {@link PerAddressChannelCredentials#NO_SERVER_NAME}.
   *
   * @param endpointHostname the endpoint's host name, or null when it has none
   */
  String serverName(String endpointHostname) {
    if (hostSni && endpointHostname != null && !endpointHostname.isEmpty()) {
      return endpointHostname;
    }
    return serverName;
  }

  /** Lets go of the certificate provider instances. */
  @Override
  public void close() {
    if (roots != null) {
      CertificateProviders.release(roots);
    }
    if (identity != null) {
      CertificateProviders.release(identity);
    }
  }

  @Override
  public String toString() {
    return "UpstreamTls[" + context + "]";
  }
}
