package dev.tern.grpcjava.internal.convert;

import java.util.ArrayList;
import java.util.List;

/**
 * Address groups both ways. Their attributes are dropped: grpc-java's keys mean nothing to Tern's
 * resolvers and balancers, nor Tern's to grpc-java's. Proxied addresses are converted ({@link
 * Proxies}). Stateless; thread-safe.
 */
public final class AddressGroups {
  private AddressGroups() {}

  /** grpc-java's groups as Tern's. */
  public static List<dev.tern.EquivalentAddressGroup> toTern(
      List<io.grpc.EquivalentAddressGroup> groups) {
    List<dev.tern.EquivalentAddressGroup> converted = new ArrayList<>(groups.size());
    for (io.grpc.EquivalentAddressGroup group : groups) {
      converted.add(
          new dev.tern.EquivalentAddressGroup(Proxies.addressesToTern(group.getAddresses())));
    }
    return converted;
  }

  /** Tern's groups as grpc-java's. */
  public static List<io.grpc.EquivalentAddressGroup> toGrpc(
      List<dev.tern.EquivalentAddressGroup> groups) {
    List<io.grpc.EquivalentAddressGroup> converted = new ArrayList<>(groups.size());
    for (dev.tern.EquivalentAddressGroup group : groups) {
      converted.add(
          new io.grpc.EquivalentAddressGroup(Proxies.addressesToGrpc(group.getAddresses())));
    }
    return converted;
  }
}
