package dev.tern.xds.internal.security;

import dev.tern.TlsChannelCredentials;
import dev.tern.xds.Bootstrap;
import dev.tern.xds.XdsFeatures;
import dev.tern.xds.XdsTlsContext;
import java.util.Objects;

/**
 * The client TLS of one cluster as the control plane has it now (A29), for every connection attempt
 * to the cluster's endpoints: {@code cluster_impl_experimental} puts this one object on each
 * endpoint's address group and {@link #update}s it when the cluster's UpstreamTlsContext changes,
 * so a subchannel made before the change, whose address groups the endpoint policies keep as they
 * were, still makes its next connection with the new settings (plaintext, when the cluster has no
 * TLS). Open connections keep the TLS they were made with.
 *
 * <p>Thread-safety: {@link #update} and {@link #close} are called from the channel's
 * synchronization context; {@link #credentials} from any thread (connection attempts), which read
 * the current state through one volatile field.
 */
public final class ClusterTls implements AutoCloseable {
  /** What connections use now: {@code tls} (null: plaintext), unless {@code problem} is set. */
  private record Current(UpstreamTls tls, String problem) {}

  private static final Current PLAINTEXT = new Current(null, null);
  private static final Current CLOSED = new Current(null, "its balancer is shut down");

  private final String cluster;
  private volatile Current current = PLAINTEXT;

  /**
   * @param cluster the cluster's name, for the messages of failed connection attempts
   */
  public ClusterTls(String cluster) {
    this.cluster = Objects.requireNonNull(cluster, "cluster");
  }

  /**
   * Follows the cluster's TLS: when {@code wanted} differs from what it follows, opens the TLS of
   * {@code wanted} on {@code bootstrap}'s certificate provider instances and closes the previous
   * one. If that fails, connection attempts to the cluster fail (rather than fall back to the
   * channel's own security) until an update succeeds.
   *
   * @param wanted the cluster's UpstreamTlsContext, or null for plaintext
   * @param bootstrap the instances to open it on; may be null when {@code wanted} is
   * @return whether the settings changed (the next connection attempts use other settings)
   * @throws IllegalArgumentException if the bootstrap lacks an instance {@code wanted} names
   * @throws IllegalStateException if {@code wanted} needs instances and there is no bootstrap, or
   *     the system's roots it asks for cannot be read
   */
  public boolean update(XdsTlsContext wanted, Bootstrap bootstrap) {
    Current previous = current;
    if (previous.problem == null
        && Objects.equals(wanted, previous.tls == null ? null : previous.tls.context())) {
      return false;
    }
    Current next;
    RuntimeException failure = null;
    if (wanted == null) {
      next = PLAINTEXT;
    } else if (bootstrap == null) {
      failure = new IllegalStateException("no xDS client to take certificate providers from");
      next = new Current(null, failure.getMessage());
    } else {
      try {
        next = new Current(UpstreamTls.open(bootstrap, wanted, XdsFeatures.current().sni()), null);
      } catch (IllegalArgumentException | IllegalStateException e) {
        failure = e;
        next = new Current(null, e.getMessage());
      }
    }
    current = next;
    if (previous.tls != null) {
      previous.tls.close();
    }
    if (failure != null) {
      throw failure;
    }
    return true;
  }

  /**
   * The credentials of a new connection to the cluster: its current TLS, or null for plaintext (the
   * channel's fallback credentials).
   *
   * @throws IllegalStateException if the cluster's TLS could not be opened, or its instances have
   *     no usable material yet (the message says which)
   */
  public TlsChannelCredentials credentials() {
    Current now = current;
    if (now.problem != null) {
      throw new IllegalStateException(
          "xDS TLS of cluster " + cluster + " is not usable: " + now.problem);
    }
    return now.tls == null ? null : now.tls.credentials();
  }

  /**
   * The TLS server name of a new connection to an endpoint of the cluster that {@link #credentials}
   * gave TLS to, as {@link dev.tern.PerAddressChannelCredentials#serverNameFor} says (A101).
   *
   * @param endpointHostname the endpoint's host name ({@code auto_host_sni}), or null
   */
  public String serverName(String endpointHostname) {
    Current now = current;
    return now.tls == null ? null : now.tls.serverName(endpointHostname);
  }

  /** Closes the current TLS; a connection attempt after this fails. */
  @Override
  public void close() {
    Current previous = current;
    current = CLOSED;
    if (previous.tls != null) {
      previous.tls.close();
    }
  }

  @Override
  public String toString() {
    Current now = current;
    return "ClusterTls["
        + cluster
        + ": "
        + (now.problem != null ? now.problem : now.tls == null ? "plaintext" : now.tls)
        + "]";
  }
}
