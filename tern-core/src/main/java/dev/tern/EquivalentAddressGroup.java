package dev.tern;

import java.net.SocketAddress;
import java.util.List;
import java.util.Objects;

/**
 * The addresses of one server (an endpoint): a load balancer treats them as one, connecting to
 * whichever answers. A name resolver reports one group per server; a {@link
 * LoadBalancer.Subchannel} connects to one group.
 *
 * <p>Immutable; thread-safe.
 */
public final class EquivalentAddressGroup {
  private final List<SocketAddress> addresses;
  private final Attributes attributes;
  private final int hashCode;

  /**
   * A group of {@code addresses} (tried in order) with {@code attributes}.
   *
   * @throws IllegalArgumentException if {@code addresses} is empty
   */
  public EquivalentAddressGroup(List<? extends SocketAddress> addresses, Attributes attributes) {
    Objects.requireNonNull(addresses, "addresses");
    if (addresses.isEmpty()) {
      throw new IllegalArgumentException("addresses must not be empty");
    }
    this.addresses = List.copyOf(addresses);
    this.attributes = Objects.requireNonNull(attributes, "attributes");
    this.hashCode = this.addresses.hashCode();
  }

  /** A group of {@code addresses} with no attributes. */
  public EquivalentAddressGroup(List<? extends SocketAddress> addresses) {
    this(addresses, Attributes.EMPTY);
  }

  /** A group of one address with no attributes. */
  public EquivalentAddressGroup(SocketAddress address) {
    this(address, Attributes.EMPTY);
  }

  /** A group of one address with {@code attributes}. */
  public EquivalentAddressGroup(SocketAddress address, Attributes attributes) {
    this(List.of(Objects.requireNonNull(address, "address")), attributes);
  }

  /** The addresses, in the order to try them; unmodifiable. */
  public List<SocketAddress> getAddresses() {
    return addresses;
  }

  /** Attributes of this server (for example, set by the resolver for the balancer). */
  public Attributes getAttributes() {
    return attributes;
  }

  /** Equal when the addresses (in order) and the attributes are equal. */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof EquivalentAddressGroup)) {
      return false;
    }
    EquivalentAddressGroup other = (EquivalentAddressGroup) o;
    return hashCode == other.hashCode
        && addresses.equals(other.addresses)
        && attributes.equals(other.attributes);
  }

  @Override
  public int hashCode() {
    return hashCode;
  }

  @Override
  public String toString() {
    return attributes.keys().isEmpty()
        ? addresses.toString()
        : "[" + addresses + " / " + attributes + "]";
  }
}
