package dev.tern.xds.client;

import dev.tern.Attributes;
import dev.tern.ChannelCredentials;
import dev.tern.PerAddressChannelCredentials;
import dev.tern.TlsChannelCredentials;
import dev.tern.xds.internal.XdsAttributes;
import dev.tern.xds.internal.security.ClusterTls;

/**
 * The credentials of a channel whose security the control plane configures (A29): a connection to
 * an endpoint of a cluster with an UpstreamTlsContext uses TLS from the bootstrap's certificate
 * provider instances the context names (the server is checked against the validation instance's
 * roots and then the cluster's {@code match_subject_alt_names}, instead of a host-name check; with
 * an identity instance the channel presents its certificate, mTLS); other connections use {@code
 * fallback} (plaintext, or the application's TLS). Key, certificate and roots rotated on disk are
 * used by new connections, and so are the cluster's TLS settings when the control plane changes
 * them (a new SAN matcher, another instance, TLS turned on or off): the next connection attempt to
 * each endpoint uses them, and an endpoint that failed under the old ones tries again at once;
 * connections already open keep the settings they were made with. A server certificate whose SANs
 * do not match fails the call UNAVAILABLE with a description naming the SAN check. The TLS server
 * name (SNI) is the endpoint's host name where the cluster sets {@code auto_host_sni} and the
 * endpoint has one (EDS's {@code endpoint.hostname}, a LOGICAL_DNS cluster's DNS name), else the
 * cluster's {@code sni}, else none (A101; with {@code GRPC_EXPERIMENTAL_XDS_SNI} off, the channel's
 * authority).
 *
 * <p>Only the xds resolver's balancers mark addresses with their cluster's TLS, so on a channel to
 * a non-xDS target these credentials are just {@code fallback}. Immutable; thread-safe.
 */
public final class XdsChannelCredentials extends PerAddressChannelCredentials {
  private XdsChannelCredentials(ChannelCredentials fallback) {
    super(fallback);
  }

  /**
   * Credentials that use {@code fallback} where the control plane configures no security.
   *
   * @throws IllegalArgumentException if {@code fallback} is per-address credentials itself
   */
  public static ChannelCredentials create(ChannelCredentials fallback) {
    return new XdsChannelCredentials(fallback);
  }

  @Override
  public TlsChannelCredentials credentialsFor(Attributes addressAttributes) {
    ClusterTls tls = addressAttributes.get(XdsAttributes.UPSTREAM_TLS);
    return tls == null ? null : tls.credentials();
  }

  @Override
  public String serverNameFor(Attributes addressAttributes) {
    ClusterTls tls = addressAttributes.get(XdsAttributes.UPSTREAM_TLS);
    return tls == null
        ? null
        : tls.serverName(addressAttributes.get(XdsAttributes.ENDPOINT_HOSTNAME));
  }

  @Override
  public String toString() {
    return "XdsChannelCredentials[fallback=" + fallback() + "]";
  }
}
