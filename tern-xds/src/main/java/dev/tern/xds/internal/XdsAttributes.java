package dev.tern.xds.internal;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.xds.XdsClient;
import dev.tern.xds.internal.security.ClusterTls;

/**
 * The keys by which the xds name resolver, its config selector and the xDS balancers hand each
 * other what the public SPI has no field for. Constants only; thread-safe.
 *
 * <ul>
 *   <li>{@link #XDS_CLIENT}: the resolver puts the {@link XdsClient} it holds into its resolution
 *       result's attributes; the channel passes them to the balancer tree, whose cds and cluster
 *       resolver balancers watch clusters and endpoints through it. The resolver owns the client's
 *       reference in the pool; the balancers never release it.
 *   <li>{@link #CLUSTER_SELECTION}: the cluster-manager child a call's route chose ({@code
 *       "cluster:<name>"}), set in the call's options by the interceptor of the selector's result
 *       and read by the cluster manager's picker.
 *   <li>{@link #RPC_HASH}: the call's hash from its route's hash policies (gRFC A42), for
 *       ring_hash.
 *   <li>{@link #UPSTREAM_TLS}: the TLS of the cluster an endpoint belongs to (A29), set by
 *       cluster_impl on each endpoint's address group for {@code XdsChannelCredentials}: one object
 *       per cluster that follows the cluster's current TLS, so that the endpoint policies need not
 *       replace their subchannels' addresses when it changes.
 *   <li>{@link #ENDPOINT_HOSTNAME}: an endpoint's host name, set by the cluster resolver's EDS and
 *       DNS watches on its address group, for {@code XdsChannelCredentials}'s {@code auto_host_sni}
 *       (A101).
 * </ul>
 */
public final class XdsAttributes {
  /** The resolver's XdsClient, in the resolution result's (and so the balancer's) attributes. */
  public static final Attributes.Key<XdsClient> XDS_CLIENT =
      Attributes.Key.create("dev.tern.xds.XdsClient");

  /** The cluster-manager child the call's route chose, {@code "cluster:<name>"}. */
  public static final CallOptions.Key<String> CLUSTER_SELECTION =
      CallOptions.Key.create("dev.tern.xds.clusterSelection");

  /** The call's ring-hash key from its route's hash policies (gRFC A42), or null for random. */
  public static final CallOptions.Key<Long> RPC_HASH =
      CallOptions.Key.create("dev.tern.xds.rpcHash");

  /** The TLS of the endpoint's cluster (A29), on its address group; absent off xDS clusters. */
  public static final Attributes.Key<ClusterTls> UPSTREAM_TLS =
      Attributes.Key.create("dev.tern.xds.upstreamTls");

  /**
   * The endpoint's host name, on its address group when it has one: EDS's {@code
   * endpoint.hostname}, or a LOGICAL_DNS cluster's DNS name; the server name of {@code
   * auto_host_sni} (A101).
   */
  public static final Attributes.Key<String> ENDPOINT_HOSTNAME =
      Attributes.Key.create("dev.tern.xds.endpointHostname");

  private XdsAttributes() {}
}
