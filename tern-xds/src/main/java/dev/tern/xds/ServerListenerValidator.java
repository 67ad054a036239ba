package dev.tern.xds;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.tern.xds.XdsServerListener.CidrRange;
import dev.tern.xds.XdsServerListener.SourceType;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.listener.v3.Filter;
import io.envoyproxy.envoy.config.listener.v3.FilterChain;
import io.envoyproxy.envoy.config.listener.v3.FilterChainMatch;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Validates a server-side Listener (A36): its address, and each filter chain's match and its one
 * network filter, an HttpConnectionManager. Chains whose matches overlap (some connection would
 * match both equally well) are an error naming both. Stateless.
 */
final class ServerListenerValidator {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  private ServerListenerValidator() {}

  static XdsServerListener validate(Listener listener, String prefix, Set<String> instances)
      throws XdsResourceException {
    if (!listener.getAddress().hasSocketAddress()) {
      throw new XdsResourceException(prefix + "address.socket_address: missing");
    }
    SocketAddress address = listener.getAddress().getSocketAddress();
    if (address.getPortSpecifierCase() != SocketAddress.PortSpecifierCase.PORT_VALUE) {
      throw new XdsResourceException(prefix + "address.socket_address.port_value: missing");
    }
    ip(address.getAddress(), prefix + "address.socket_address.address");
    List<XdsServerListener.FilterChain> chains = new ArrayList<>();
    for (int i = 0; i < listener.getFilterChainsCount(); i++) {
      chains.add(
          chain(listener.getFilterChains(i), prefix + "filter_chains[" + i + "]", instances));
    }
    checkOverlaps(chains, prefix);
    XdsServerListener.FilterChain defaultChain = null;
    if (listener.hasDefaultFilterChain()) {
      defaultChain =
          chain(listener.getDefaultFilterChain(), prefix + "default_filter_chain", instances);
    }
    return new XdsServerListener(
        listener.getName(), address.getAddress(), address.getPortValue(), chains, defaultChain);
  }

  private static XdsServerListener.FilterChain chain(
      FilterChain chain, String field, Set<String> instances) throws XdsResourceException {
    XdsTlsContext tls = null;
    if (chain.hasTransportSocket()) {
      tls =
          TlsContextValidator.downstream(
              chain.getTransportSocket(), field + ".transport_socket", instances);
    }
    if (chain.getFiltersCount() != 1) {
      throw new XdsResourceException(
          field
              + ".filters: "
              + chain.getFiltersCount()
              + " filters, but exactly one (an HttpConnectionManager) is needed");
    }
    Filter filter = chain.getFilters(0);
    String type = filter.getTypedConfig().getTypeUrl();
    if (!type.equals(ListenerValidator.HCM_TYPE_URL)) {
      throw new XdsResourceException(
          field
              + ".filters[0] \""
              + filter.getName()
              + "\": filter type "
              + type
              + " is not supported (only an HttpConnectionManager)");
    }
    HttpConnectionManager hcm;
    try {
      hcm = HttpConnectionManager.parseFrom(filter.getTypedConfig().getValue());
    } catch (InvalidProtocolBufferException e) {
      throw new XdsResourceException(
          field + ".filters[0].typed_config: cannot be decoded: " + e.getMessage());
    }
    XdsListener connectionManager =
        ListenerValidator.filtersRunningOn(
            true,
            ListenerValidator.connectionManager(chain.getName(), hcm, field + ".filters[0]."),
            field + ".filters[0].");
    return new XdsServerListener.FilterChain(
        chain.getName(),
        match(chain.getFilterChainMatch(), field + ".filter_chain_match"),
        connectionManager,
        tls);
  }

  private static XdsServerListener.FilterChainMatch match(FilterChainMatch match, String field)
      throws XdsResourceException {
    boolean neverMatches =
        match.hasDestinationPort()
            || match.getServerNamesCount() > 0
            || !match.getTransportProtocol().isEmpty()
            || match.getApplicationProtocolsCount() > 0;
    SourceType sourceType =
        switch (match.getSourceType()) {
          case ANY -> SourceType.ANY;
          case SAME_IP_OR_LOOPBACK -> SourceType.SAME_IP_OR_LOOPBACK;
          case EXTERNAL -> SourceType.EXTERNAL;
          default ->
              throw new XdsResourceException(
                  field + ".source_type: unknown value " + match.getSourceTypeValue());
        };
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < match.getSourcePortsCount(); i++) {
      int port = match.getSourcePorts(i);
      if (port < 1 || port > 65535) {
        throw new XdsResourceException(
            field
                + ".source_ports["
                + i
                + "]: "
                + Integer.toUnsignedString(port)
                + " is not a port");
      }
      ports.add(port);
    }
    return new XdsServerListener.FilterChainMatch(
        ranges(match.getPrefixRangesList(), field + ".prefix_ranges"),
        sourceType,
        ranges(match.getSourcePrefixRangesList(), field + ".source_prefix_ranges"),
        ports,
        neverMatches);
  }

  private static List<CidrRange> ranges(
      List<io.envoyproxy.envoy.config.core.v3.CidrRange> list, String field)
      throws XdsResourceException {
    List<CidrRange> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      io.envoyproxy.envoy.config.core.v3.CidrRange range = list.get(i);
      String at = field + "[" + i + "]";
      InetAddress ip = ip(range.getAddressPrefix(), at + ".address_prefix");
      int length = range.getPrefixLen().getValue();
      int bits = ip.getAddress().length * 8;
      if (length < 0 || length > bits) {
        throw new XdsResourceException(
            at + ".prefix_len: " + Integer.toUnsignedString(length) + " is more than " + bits);
      }
      out.add(new CidrRange(ip, length));
    }
    return out;
  }

  /** An IP address literal (never a host name: no DNS lookup happens here). */
  static InetAddress ip(String literal, String field) throws XdsResourceException {
    if (!IPV4.matcher(literal).matches() && !literal.contains(":")) {
      throw new XdsResourceException(field + ": \"" + literal + "\" is not an IP address");
    }
    try {
      return InetAddress.getByName(literal);
    } catch (UnknownHostException | IllegalArgumentException e) {
      throw new XdsResourceException(field + ": \"" + literal + "\" is not an IP address");
    }
  }

  /**
   * Fails if two chains that can match take the same connections: the same destination prefix,
   * source type, source prefix and source port (A36: such a Listener is rejected).
   */
  private static void checkOverlaps(List<XdsServerListener.FilterChain> chains, String prefix)
      throws XdsResourceException {
    Map<String, Integer> owners = new HashMap<>();
    for (int c = 0; c < chains.size(); c++) {
      XdsServerListener.FilterChainMatch match = chains.get(c).match();
      if (match.neverMatches()) {
        continue;
      }
      for (String destination : keys(match.prefixRanges())) {
        for (String source : keys(match.sourcePrefixRanges())) {
          for (String port : portKeys(match.sourcePorts())) {
            String key = destination + "|" + match.sourceType() + "|" + source + "|" + port;
            Integer other = owners.putIfAbsent(key, c);
            if (other != null) {
              throw new XdsResourceException(
                  prefix
                      + "filter_chains["
                      + other
                      + "] "
                      + describe(chains.get(other))
                      + " and filter_chains["
                      + c
                      + "] "
                      + describe(chains.get(c))
                      + " overlap: both match destination "
                      + destination
                      + ", source type "
                      + match.sourceType()
                      + ", source "
                      + source
                      + ", source port "
                      + port);
            }
          }
        }
      }
    }
  }

  private static List<String> keys(List<CidrRange> ranges) {
    if (ranges.isEmpty()) {
      return List.of("any");
    }
    List<String> keys = new ArrayList<>();
    for (CidrRange range : ranges) {
      keys.add(range.toString());
    }
    return keys;
  }

  private static List<String> portKeys(List<Integer> ports) {
    if (ports.isEmpty()) {
      return List.of("any");
    }
    List<String> keys = new ArrayList<>();
    for (int port : ports) {
      keys.add(Integer.toString(port));
    }
    return keys;
  }

  private static String describe(XdsServerListener.FilterChain chain) {
    return "\"" + chain.name() + "\"";
  }
}
