package dev.tern.internal.resolver;

import dev.tern.EquivalentAddressGroup;
import dev.tern.NameResolver;
import dev.tern.NameResolverProvider;
import dev.tern.internal.AddressLiterals;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The {@code ipv4:} and {@code ipv6:} schemes of the gRPC naming spec: a comma-separated list of
 * address literals, each with an optional port ({@code ipv4:10.0.0.1:50051,10.0.0.2:50051}, {@code
 * ipv6:[::1]:50051,[::2]}), each its own server. Nothing is looked up. Thread-safe (immutable).
 */
public abstract class AddressListNameResolverProvider extends NameResolverProvider {
  private final String scheme;
  private final boolean v6;

  AddressListNameResolverProvider(String scheme, boolean v6) {
    this.scheme = scheme;
    this.v6 = v6;
  }

  /** The {@code ipv4} scheme. */
  public static final class Ipv4 extends AddressListNameResolverProvider {
    /** For {@link java.util.ServiceLoader}. */
    public Ipv4() {
      super("ipv4", false);
    }
  }

  /** The {@code ipv6} scheme. */
  public static final class Ipv6 extends AddressListNameResolverProvider {
    /** For {@link java.util.ServiceLoader}. */
    public Ipv6() {
      super("ipv6", true);
    }
  }

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public int priority() {
    return 5;
  }

  @Override
  public String getScheme() {
    return scheme;
  }

  @Override
  public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
    return List.of(InetSocketAddress.class);
  }

  /**
   * @throws IllegalArgumentException if the list is empty or an element is not an address literal
   *     of this scheme's family with a valid port
   */
  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    String list = targetUri.getSchemeSpecificPart();
    String target = scheme + ":" + list;
    if (list.startsWith("//")) {
      throw new IllegalArgumentException(
          "target '" + target + "' must be " + scheme + ":address[:port][,address[:port]...]");
    }
    if (list.isEmpty()) {
      throw new IllegalArgumentException("target '" + target + "' lists no addresses");
    }
    List<EquivalentAddressGroup> groups = new ArrayList<>();
    for (String element : list.split(",", -1)) {
      groups.add(new EquivalentAddressGroup(parseElement(element, args.getDefaultPort(), target)));
    }
    String authority = list.split(",", -1)[0];
    return new FixedResolver(groups, authority);
  }

  private InetSocketAddress parseElement(String element, int defaultPort, String target) {
    String text = element;
    if (v6 && !text.startsWith("[")) {
      text = "[" + text + "]"; // a bare IPv6 literal, no port
    }
    HostAndPort parsed;
    try {
      parsed = HostAndPort.parse(text, defaultPort, target);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "target '"
              + target
              + "': '"
              + element
              + "' is not an "
              + scheme
              + " address: "
              + e.getMessage(),
          e);
    }
    InetAddress address = AddressLiterals.parse(parsed.host());
    boolean rightFamily = v6 ? address instanceof Inet6Address : address instanceof Inet4Address;
    if (address == null || !rightFamily) {
      throw new IllegalArgumentException(
          "target '" + target + "': '" + parsed.host() + "' is not an " + scheme + " literal");
    }
    return new InetSocketAddress(address, parsed.port());
  }

  /** Reports its fixed list once. */
  private static final class FixedResolver extends NameResolver {
    private final List<EquivalentAddressGroup> groups;
    private final String authority;

    FixedResolver(List<EquivalentAddressGroup> groups, String authority) {
      this.groups = groups;
      this.authority = authority;
    }

    @Override
    public String getServiceAuthority() {
      return authority;
    }

    @Override
    public void start(Listener listener) {
      listener.onResult(ResolutionResult.newBuilder().setAddresses(groups).build());
    }

    @Override
    public void shutdown() {}
  }
}
