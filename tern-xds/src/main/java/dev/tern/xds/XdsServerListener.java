package dev.tern.xds;

import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/**
 * A validated server-side Listener (A36): the address it is for, its filter chains and its default
 * filter chain. Immutable.
 *
 * @param name the resource name
 * @param host the {@code address.socket_address.address} (an IP address literal)
 * @param port the {@code address.socket_address.port_value}
 * @param filterChains the chains a connection may match, in the control plane's order
 * @param defaultFilterChain the chain of connections that match none, or null
 */
public record XdsServerListener(
    String name,
    String host,
    int port,
    List<FilterChain> filterChains,
    FilterChain defaultFilterChain) {
  public XdsServerListener {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(host, "host");
    filterChains = List.copyOf(filterChains);
  }

  /** The filter chains, then the default one if there is one. */
  public List<FilterChain> allFilterChains() {
    if (defaultFilterChain == null) {
      return filterChains;
    }
    List<FilterChain> all = new java.util.ArrayList<>(filterChains);
    all.add(defaultFilterChain);
    return List.copyOf(all);
  }

  /**
   * A filter chain: which connections it takes and the HttpConnectionManager that serves them.
   *
   * @param name the chain's name (may be empty; then named by its index in messages)
   * @param match which connections it takes
   * @param connectionManager its HttpConnectionManager, in the model of a client listener's: the
   *     routes (RDS name or inline) and the HTTP filters
   * @param tls its {@code transport_socket}'s DownstreamTlsContext (A29), or null for none
   */
  public record FilterChain(
      String name, FilterChainMatch match, XdsListener connectionManager, XdsTlsContext tls) {
    public FilterChain {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(match, "match");
      Objects.requireNonNull(connectionManager, "connectionManager");
    }

    /** A chain without TLS from the control plane (its connections use the fallback). */
    public FilterChain(String name, FilterChainMatch match, XdsListener connectionManager) {
      this(name, match, connectionManager, null);
    }
  }

  /** Which connections a {@code filter_chain_match.source_type} takes. */
  public enum SourceType {
    ANY,
    SAME_IP_OR_LOOPBACK,
    EXTERNAL
  }

  /**
   * A {@code filter_chain_match} as gRPC reads it (A36).
   *
   * @param prefixRanges the destination prefixes; empty matches every destination
   * @param sourcePrefixRanges the source prefixes; empty matches every source
   * @param sourcePorts the source ports; empty matches every port
   * @param neverMatches true when it sets a field gRPC does not match on ({@code destination_port},
   *     {@code server_names}, {@code transport_protocol}, {@code application_protocols}): such a
   *     chain never takes a connection
   */
  public record FilterChainMatch(
      List<CidrRange> prefixRanges,
      SourceType sourceType,
      List<CidrRange> sourcePrefixRanges,
      List<Integer> sourcePorts,
      boolean neverMatches) {
    public FilterChainMatch {
      prefixRanges = List.copyOf(prefixRanges);
      Objects.requireNonNull(sourceType, "sourceType");
      sourcePrefixRanges = List.copyOf(sourcePrefixRanges);
      sourcePorts = List.copyOf(sourcePorts);
    }
  }

  /**
   * An address prefix, its host bits cleared.
   *
   * @param prefixLength 0 to 32 for IPv4, to 128 for IPv6
   */
  public record CidrRange(InetAddress address, int prefixLength) {
    public CidrRange {
      Objects.requireNonNull(address, "address");
      int bits = address.getAddress().length * 8;
      if (prefixLength < 0 || prefixLength > bits) {
        throw new IllegalArgumentException("prefixLength " + prefixLength + " not in 0.." + bits);
      }
      address = mask(address, prefixLength);
    }

    /** Whether {@code ip} is in this range (an address of the other family never is). */
    public boolean contains(InetAddress ip) {
      return ip.getAddress().length == address.getAddress().length
          && mask(ip, prefixLength).equals(address);
    }

    private static InetAddress mask(InetAddress ip, int length) {
      byte[] bytes = ip.getAddress();
      for (int i = 0; i < bytes.length; i++) {
        int keep = Math.max(0, Math.min(8, length - i * 8));
        bytes[i] = (byte) (bytes[i] & (0xff00 >> keep));
      }
      try {
        return InetAddress.getByAddress(bytes);
      } catch (java.net.UnknownHostException e) {
        throw new AssertionError("a 4- or 16-byte address", e);
      }
    }

    @Override
    public String toString() {
      return address.getHostAddress() + "/" + prefixLength;
    }
  }
}
