package dev.tern.xds;

import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** Validates a ClusterLoadAssignment (A27) into {@link XdsEndpoints}. Stateless. */
final class EndpointsValidator {
  private EndpointsValidator() {}

  static XdsEndpoints validate(ClusterLoadAssignment assignment) throws XdsResourceException {
    String prefix = "ClusterLoadAssignment \"" + assignment.getClusterName() + "\": ";
    List<XdsEndpoints.LocalityEndpoints> localities = new ArrayList<>();
    Set<Integer> priorities = new TreeSet<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < assignment.getEndpointsCount(); i++) {
      LocalityLbEndpoints locality = assignment.getEndpoints(i);
      String field = prefix + "endpoints[" + i + "]";
      int weight =
          locality.hasLoadBalancingWeight() ? locality.getLoadBalancingWeight().getValue() : 0;
      if (weight == 0) {
        continue; // A27: a locality without a weight is ignored
      }
      if (weight < 0) {
        throw new XdsResourceException(field + ".load_balancing_weight: out of range");
      }
      var l = locality.getLocality();
      String key =
          locality.getPriority() + "/" + l.getRegion() + "/" + l.getZone() + "/" + l.getSubZone();
      if (!seen.add(key)) {
        throw new XdsResourceException(
            field
                + ".locality: duplicate locality {"
                + l.getRegion()
                + ", "
                + l.getZone()
                + ", "
                + l.getSubZone()
                + "} in priority "
                + locality.getPriority());
      }
      List<XdsEndpoints.Endpoint> endpoints = new ArrayList<>();
      for (int e = 0; e < locality.getLbEndpointsCount(); e++) {
        endpoints.add(endpoint(locality.getLbEndpoints(e), field + ".lb_endpoints[" + e + "]"));
      }
      priorities.add(locality.getPriority());
      localities.add(
          new XdsEndpoints.LocalityEndpoints(
              l.getRegion(),
              l.getZone(),
              l.getSubZone(),
              weight,
              locality.getPriority(),
              endpoints));
    }
    int expected = 0;
    for (int p : priorities) {
      if (p != expected) {
        throw new XdsResourceException(
            prefix + "endpoints: priorities " + priorities + " skip priority " + expected);
      }
      expected++;
    }
    List<XdsEndpoints.DropOverload> drops = new ArrayList<>();
    var overloads = assignment.getPolicy().getDropOverloadsList();
    for (int i = 0; i < overloads.size(); i++) {
      var d = overloads.get(i);
      drops.add(
          new XdsEndpoints.DropOverload(
              d.getCategory(), RouteValidator.perMillion(d.getDropPercentage())));
    }
    return new XdsEndpoints(assignment.getClusterName(), localities, drops);
  }

  private static XdsEndpoints.Endpoint endpoint(LbEndpoint lb, String field)
      throws XdsResourceException {
    if (!lb.getEndpoint().getAddress().hasSocketAddress()) {
      throw new XdsResourceException(field + ".endpoint.address: not a socket_address");
    }
    SocketAddress address = lb.getEndpoint().getAddress().getSocketAddress();
    if (address.getAddress().isEmpty()) {
      throw new XdsResourceException(field + ".endpoint.address.socket_address.address: empty");
    }
    if (address.getPortSpecifierCase() != SocketAddress.PortSpecifierCase.PORT_VALUE
        || address.getPortValue() > 65535) {
      throw new XdsResourceException(
          field + ".endpoint.address.socket_address.port_value: missing or out of range");
    }
    int weight = 1;
    if (lb.hasLoadBalancingWeight()) {
      weight = lb.getLoadBalancingWeight().getValue();
      if (weight <= 0) {
        throw new XdsResourceException(field + ".load_balancing_weight: must be positive");
      }
    }
    XdsEndpoints.HealthStatus health =
        switch (lb.getHealthStatus()) {
          case HEALTHY -> XdsEndpoints.HealthStatus.HEALTHY;
          case UNHEALTHY -> XdsEndpoints.HealthStatus.UNHEALTHY;
          case DRAINING -> XdsEndpoints.HealthStatus.DRAINING;
          case TIMEOUT -> XdsEndpoints.HealthStatus.TIMEOUT;
          case DEGRADED -> XdsEndpoints.HealthStatus.DEGRADED;
          default -> XdsEndpoints.HealthStatus.UNKNOWN;
        };
    return new XdsEndpoints.Endpoint(
        address.getAddress(),
        address.getPortValue(),
        health,
        weight,
        lb.getEndpoint().getHostname());
  }
}
