package dev.tern.internal.channel;

import dev.tern.EquivalentAddressGroup;
import dev.tern.NameResolver;
import java.net.SocketAddress;
import java.util.List;

/**
 * The resolver of a channel built for one {@link SocketAddress} ({@code forAddress(address)}), and
 * of schemes that name one address ({@code inprocess:NAME}): it reports that address once.
 * Thread-safe (immutable).
 */
public final class DirectAddressNameResolver extends NameResolver {
  private final SocketAddress address;
  private final String authority;

  /** A resolver that reports {@code address}, with {@code authority} as its service authority. */
  public DirectAddressNameResolver(SocketAddress address, String authority) {
    this.address = address;
    this.authority = authority;
  }

  @Override
  public String getServiceAuthority() {
    return authority;
  }

  @Override
  public void start(Listener listener) {
    listener.onResult(
        ResolutionResult.newBuilder()
            .setAddresses(List.of(new EquivalentAddressGroup(address)))
            .build());
  }

  @Override
  public void shutdown() {}

  @Override
  public String toString() {
    return "DirectAddressNameResolver{" + address + "}";
  }
}
