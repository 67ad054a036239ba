package dev.tern.xds;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.tern.xds.internal.filter.FilterConfig;
import dev.tern.xds.internal.filter.FilterConfigException;
import dev.tern.xds.internal.filter.FilterType;
import dev.tern.xds.internal.filter.FilterTypes;
import io.envoyproxy.envoy.config.core.v3.ConfigSource;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Validates a Listener into an {@link XdsListener}: a client-side one (A27, A39 filters) here, a
 * server-side one (no API listener, A36) by {@link ServerListenerValidator}. Stateless.
 */
final class ListenerValidator {
  static final String HCM_TYPE_URL =
      "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3"
          + ".HttpConnectionManager";
  static final String ROUTER_TYPE_URL =
      "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router";

  private ListenerValidator() {}

  static XdsListener validate(Listener listener) throws XdsResourceException {
    return validate(listener, Set.of());
  }

  /**
   * @param instances the bootstrap's certificate provider instance names, which a server listener's
   *     {@code transport_socket}s may name
   */
  static XdsListener validate(Listener listener, Set<String> instances)
      throws XdsResourceException {
    String prefix = "Listener \"" + listener.getName() + "\": ";
    if (!listener.hasApiListener() && listener.hasAddress()) {
      // No API listener but an address: a server's listener, with filter chains (A36).
      return XdsListener.server(ServerListenerValidator.validate(listener, prefix, instances));
    }
    if (!listener.hasApiListener()) {
      throw new XdsResourceException(
          prefix
              + "api_listener: missing (a client listener needs one; a server listener, an address)");
    }
    com.google.protobuf.Any any = listener.getApiListener().getApiListener();
    if (!any.getTypeUrl().equals(HCM_TYPE_URL)) {
      throw new XdsResourceException(
          prefix + "api_listener.api_listener: type " + any.getTypeUrl() + " is not supported");
    }
    HttpConnectionManager hcm;
    try {
      hcm = HttpConnectionManager.parseFrom(any.getValue());
    } catch (InvalidProtocolBufferException e) {
      throw new XdsResourceException(
          prefix + "api_listener.api_listener: cannot be decoded: " + e.getMessage());
    }
    return filtersRunningOn(false, connectionManager(listener.getName(), hcm, prefix), prefix);
  }

  /**
   * Keeps the HTTP filters that run on this side (A39): a filter Tern knows but runs only on the
   * other side (fault injection on a server, RBAC on a client) is NACKed unless it is optional,
   * then it is left out.
   */
  static XdsListener filtersRunningOn(boolean server, XdsListener hcm, String prefix)
      throws XdsResourceException {
    List<XdsListener.HttpFilter> kept = new ArrayList<>();
    for (XdsListener.HttpFilter filter : hcm.httpFilters()) {
      FilterType known = FilterTypes.find(filter.typeUrl());
      if (server ? known.runsOnServers() : known.runsOnClients()) {
        kept.add(filter);
      } else if (!filter.optional()) {
        throw new XdsResourceException(
            prefix
                + "http_filters \""
                + filter.name()
                + "\": filter type "
                + filter.typeUrl()
                + " is not supported on "
                + (server ? "servers" : "clients"));
      }
    }
    if (kept.size() == hcm.httpFilters().size()) {
      return hcm;
    }
    return new XdsListener(
        hcm.name(), hcm.rdsName(), hcm.inlineRoutes(), kept, hcm.maxStreamDuration());
  }

  /**
   * Validates an HttpConnectionManager (a client listener's, or a server filter chain's) into the
   * model of a client listener named {@code name}; {@code prefix} starts every error message.
   */
  static XdsListener connectionManager(String name, HttpConnectionManager hcm, String prefix)
      throws XdsResourceException {
    String rdsName = null;
    XdsRouteConfig inline = null;
    switch (hcm.getRouteSpecifierCase()) {
      case RDS -> {
        ConfigSource source = hcm.getRds().getConfigSource();
        if (!isAdsOrSelf(source)) {
          throw new XdsResourceException(prefix + "rds.config_source: must be ads or self");
        }
        rdsName = hcm.getRds().getRouteConfigName();
        if (rdsName.isEmpty()) {
          throw new XdsResourceException(prefix + "rds.route_config_name: empty");
        }
      }
      case ROUTE_CONFIG ->
          inline = RouteValidator.validate(hcm.getRouteConfig(), prefix + "route_config.");
      case SCOPED_ROUTES -> throw new XdsResourceException(prefix + "scoped_routes: not supported");
      default -> throw new XdsResourceException(prefix + "neither rds nor route_config is set");
    }
    // A41: Tern takes remote_ip to be the connection's peer, which holds only without these.
    if (hcm.getXffNumTrustedHops() != 0) {
      throw new XdsResourceException(
          prefix + "xff_num_trusted_hops: " + hcm.getXffNumTrustedHops() + ", must be 0");
    }
    if (hcm.getOriginalIpDetectionExtensionsCount() > 0) {
      throw new XdsResourceException(
          prefix + "original_ip_detection_extensions: not supported (must be empty)");
    }
    List<XdsListener.HttpFilter> filters = filters(hcm.getHttpFiltersList(), prefix);
    Duration maxStreamDuration = null;
    if (hcm.hasCommonHttpProtocolOptions()
        && hcm.getCommonHttpProtocolOptions().hasMaxStreamDuration()) {
      maxStreamDuration =
          Durations.of(
              hcm.getCommonHttpProtocolOptions().getMaxStreamDuration(),
              prefix + "common_http_protocol_options.max_stream_duration");
    }
    return new XdsListener(name, rdsName, inline, filters, maxStreamDuration);
  }

  static boolean isAdsOrSelf(ConfigSource source) {
    return source.hasAds() || source.hasSelf();
  }

  private static List<XdsListener.HttpFilter> filters(List<HttpFilter> list, String prefix)
      throws XdsResourceException {
    if (list.isEmpty()) {
      throw new XdsResourceException(
          prefix + "http_filters: empty (the router filter is required)");
    }
    List<XdsListener.HttpFilter> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      HttpFilter filter = list.get(i);
      String field = prefix + "http_filters[" + i + "]";
      if (filter.getName().isEmpty()) {
        throw new XdsResourceException(field + ".name: empty");
      }
      if (!names.add(filter.getName())) {
        throw new XdsResourceException(field + ": duplicate name \"" + filter.getName() + "\"");
      }
      if (!filter.hasTypedConfig()) {
        if (filter.getIsOptional()) {
          continue;
        }
        throw new XdsResourceException(field + ".typed_config: missing");
      }
      String type = filter.getTypedConfig().getTypeUrl();
      FilterType known = FilterTypes.find(type);
      if (known == null) {
        if (filter.getIsOptional()) {
          continue; // an optional filter Tern does not know is skipped (A39)
        }
        throw new XdsResourceException(
            field + " \"" + filter.getName() + "\": filter type " + type + " is not supported");
      }
      if (known.isTerminal() && i != list.size() - 1) {
        throw new XdsResourceException(
            field
                + " \""
                + filter.getName()
                + "\": the router filter must be last, but \""
                + list.get(i + 1).getName()
                + "\" follows it");
      }
      FilterConfig config;
      try {
        config = known.parse(filter.getTypedConfig());
      } catch (FilterConfigException e) {
        throw new XdsResourceException(
            field + " \"" + filter.getName() + "\".typed_config: " + e.getMessage());
      }
      out.add(new XdsListener.HttpFilter(filter.getName(), type, filter.getIsOptional(), config));
    }
    if (out.isEmpty() || !FilterTypes.find(out.get(out.size() - 1).typeUrl()).isTerminal()) {
      throw new XdsResourceException(prefix + "http_filters: the router filter is missing");
    }
    return out;
  }
}
