package dev.tern;

import java.util.List;

/**
 * The standard non-per-call instruments, with the names, units and labels of the gRFCs that define
 * them: subchannels' connections (A94), {@code weighted_round_robin}'s scheduler updates (A78, with
 * A89's backend service label) and the xDS client's server failures, resource updates, connected
 * servers and cached resources (A78). All are off by default, as A79 asks of experimental metrics;
 * a sink's user enables them by name. They live here, in one place, so that a sink knows every
 * standard name before the component that records it is loaded.
 */
public final class MetricInstruments {
  /** The channel's target, as A66's per-call metrics say it ({@code dns:///host:443}). */
  public static final String TARGET = "grpc.target";

  /** The xDS locality ({@code {region="r", zone="z", sub_zone="s"}}), or "" (A78). */
  public static final String LOCALITY = "grpc.lb.locality";

  /** The backend service (with xDS, the cluster's name), or "" (A89). */
  public static final String BACKEND_SERVICE = "grpc.lb.backend_service";

  /** Why a subchannel's connection ended ({@code GOAWAY NO_ERROR}, {@code connection reset}). */
  public static final String DISCONNECT_ERROR = "grpc.disconnect_error";

  /**
   * A connection's security: {@code none}, {@code integrity_only}, {@code privacy_and_integrity}.
   */
  public static final String SECURITY_LEVEL = "grpc.security_level";

  /** The URI of the xDS server. */
  public static final String XDS_SERVER = "grpc.xds.server";

  /** An xDS resource type, {@code envoy.config.listener.v3.Listener}. */
  public static final String XDS_RESOURCE_TYPE = "grpc.xds.resource_type";

  /** An xDS resource's authority (A47), or {@code #old} for a name that is not {@code xdstp:}. */
  public static final String XDS_AUTHORITY = "grpc.xds.authority";

  /**
   * What the xDS client holds of a resource: {@code requested}, {@code does_not_exist}, {@code
   * acked}, {@code nacked} or {@code nacked_but_cached}.
   */
  public static final String XDS_CACHE_STATE = "grpc.xds.cache_state";

  /**
   * The backend service of the addresses a subchannel is made for, set by the balancer on its
   * {@link LoadBalancer.CreateSubchannelArgs} attributes or the addresses' (xDS: the cluster's
   * name); the subchannel's {@link #BACKEND_SERVICE} label.
   */
  public static final Attributes.Key<String> BACKEND_SERVICE_ATTRIBUTE =
      Attributes.Key.create("grpc.lb.backend_service");

  /** Like {@link #BACKEND_SERVICE_ATTRIBUTE}, for the {@link #LOCALITY} label. */
  public static final Attributes.Key<String> LOCALITY_ATTRIBUTE =
      Attributes.Key.create("grpc.lb.locality");

  private static final MetricInstrumentRegistry REGISTRY = MetricInstrumentRegistry.bare();

  private static final List<String> SUBCHANNEL_OPTIONAL = List.of(BACKEND_SERVICE, LOCALITY);
  private static final List<String> WRR_OPTIONAL = List.of(LOCALITY, BACKEND_SERVICE);

  /** A94: connection attempts of subchannels that succeeded. Labels: target; backend, locality. */
  public static final MetricInstrument SUBCHANNEL_CONNECTION_ATTEMPTS_SUCCEEDED =
      counter(
          "grpc.subchannel.connection_attempts_succeeded",
          "Number of successful connection attempts.",
          "{attempt}",
          List.of(TARGET),
          SUBCHANNEL_OPTIONAL);

  /** A94: connection attempts of subchannels that failed. Labels: target; backend, locality. */
  public static final MetricInstrument SUBCHANNEL_CONNECTION_ATTEMPTS_FAILED =
      counter(
          "grpc.subchannel.connection_attempts_failed",
          "Number of failed connection attempts.",
          "{attempt}",
          List.of(TARGET),
          SUBCHANNEL_OPTIONAL);

  /**
   * A94: connected subchannels that lost their connection. Labels: target; backend, locality,
   * disconnect error.
   */
  public static final MetricInstrument SUBCHANNEL_DISCONNECTIONS =
      counter(
          "grpc.subchannel.disconnections",
          "Number of times the selected subchannel becomes disconnected.",
          "{disconnection}",
          List.of(TARGET),
          List.of(BACKEND_SERVICE, LOCALITY, DISCONNECT_ERROR));

  /**
   * A94: subchannels' open connections (an up-down counter). Labels: target; security level,
   * backend, locality.
   */
  public static final MetricInstrument SUBCHANNEL_OPEN_CONNECTIONS =
      REGISTRY.register(
          MetricInstrument.Kind.LONG_UP_DOWN_COUNTER,
          "grpc.subchannel.open_connections",
          "Number of open connections.",
          "{connection}",
          List.of(TARGET),
          List.of(SECURITY_LEVEL, BACKEND_SERVICE, LOCALITY),
          false);

  /** A78: scheduler updates that fell back to round robin. Labels: target; locality, backend. */
  public static final MetricInstrument WRR_RR_FALLBACK =
      counter(
          "grpc.lb.wrr.rr_fallback",
          "Number of scheduler updates in which there were not enough endpoints with valid weight,"
              + " which caused the WRR policy to fall back to RR behavior.",
          "{update}",
          List.of(TARGET),
          WRR_OPTIONAL);

  /** A78: endpoints per scheduler update without a usable weight yet. */
  public static final MetricInstrument WRR_ENDPOINT_WEIGHT_NOT_YET_USABLE =
      counter(
          "grpc.lb.wrr.endpoint_weight_not_yet_usable",
          "Number of endpoints from each scheduler update that don't yet have usable weight"
              + " information.",
          "{endpoint}",
          List.of(TARGET),
          WRR_OPTIONAL);

  /** A78: endpoints per scheduler update whose weight expired. */
  public static final MetricInstrument WRR_ENDPOINT_WEIGHT_STALE =
      counter(
          "grpc.lb.wrr.endpoint_weight_stale",
          "Number of endpoints from each scheduler update whose latest weight is older than the"
              + " expiration period.",
          "{endpoint}",
          List.of(TARGET),
          WRR_OPTIONAL);

  /** A78: each endpoint's weight at each scheduler update (0 when it has none). */
  public static final MetricInstrument WRR_ENDPOINT_WEIGHTS =
      REGISTRY.register(
          MetricInstrument.Kind.DOUBLE_HISTOGRAM,
          "grpc.lb.wrr.endpoint_weights",
          "Weight of each endpoint, recorded on every scheduler update. Endpoints without usable"
              + " weights will be recorded as weight 0.",
          "{weight}",
          List.of(TARGET),
          WRR_OPTIONAL,
          false);

  /** A78: xDS servers going from healthy to unhealthy. */
  public static final MetricInstrument XDS_CLIENT_SERVER_FAILURE =
      counter(
          "grpc.xds_client.server_failure",
          "A counter of xDS servers going from healthy to unhealthy.",
          "{failure}",
          List.of(TARGET, XDS_SERVER),
          List.of());

  /** A78: resources received that were valid (changed or not). */
  public static final MetricInstrument XDS_CLIENT_RESOURCE_UPDATES_VALID =
      counter(
          "grpc.xds_client.resource_updates_valid",
          "A counter of resources received that were considered valid.",
          "{resource}",
          List.of(TARGET, XDS_SERVER, XDS_RESOURCE_TYPE),
          List.of());

  /** A78: resources received that were not valid. */
  public static final MetricInstrument XDS_CLIENT_RESOURCE_UPDATES_INVALID =
      counter(
          "grpc.xds_client.resource_updates_invalid",
          "A counter of resources received that were considered invalid.",
          "{resource}",
          List.of(TARGET, XDS_SERVER, XDS_RESOURCE_TYPE),
          List.of());

  /**
   * A78: whether the xDS client has a working ADS stream to the server (1 from the stream's start,
   * 0 after it failed before any response, as A57 says, 1 again at the next response).
   */
  public static final MetricInstrument XDS_CLIENT_CONNECTED =
      REGISTRY.register(
          MetricInstrument.Kind.LONG_GAUGE,
          "grpc.xds_client.connected",
          "Whether or not the xDS client currently has a working ADS stream to the xDS server.",
          "{bool}",
          List.of(TARGET, XDS_SERVER),
          List.of(),
          false);

  /** A78: the xDS client's subscribed resources, by authority, cache state and type. */
  public static final MetricInstrument XDS_CLIENT_RESOURCES =
      REGISTRY.register(
          MetricInstrument.Kind.LONG_GAUGE,
          "grpc.xds_client.resources",
          "Number of xDS resources.",
          "{resource}",
          List.of(TARGET, XDS_AUTHORITY, XDS_CACHE_STATE, XDS_RESOURCE_TYPE),
          List.of(),
          false);

  private MetricInstruments() {}

  /** Makes sure this class has initialized, and so registered its instruments. */
  static void ensureRegistered() {
    // Reading a static method runs the static initializers above, once.
  }

  private static MetricInstrument counter(
      String name, String description, String unit, List<String> labels, List<String> optional) {
    return REGISTRY.register(
        MetricInstrument.Kind.LONG_COUNTER, name, description, unit, labels, optional, false);
  }
}
