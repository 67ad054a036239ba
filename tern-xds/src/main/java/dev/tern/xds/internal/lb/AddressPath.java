package dev.tern.xds.internal.lb;

import dev.tern.Attributes;
import dev.tern.EquivalentAddressGroup;
import java.util.ArrayList;
import java.util.List;

/**
 * What the cluster resolver attaches to each endpoint's address group for the balancers below it:
 * the path of child names that leads to the endpoint (priority child, then locality), and the
 * endpoint's and locality's weights. Each level keeps the addresses whose path starts with its
 * child's name and passes them on with that name removed. Stateless; thread-safe.
 */
final class AddressPath {
  /** The remaining child names down to the endpoint. */
  static final Attributes.Key<List<String>> PATH = Attributes.Key.create("dev.tern.xds.lb.path");

  /** The endpoint's weight from EDS (1 when absent). */
  static final Attributes.Key<Integer> ENDPOINT_WEIGHT =
      Attributes.Key.create("dev.tern.xds.lb.endpointWeight");

  /** The endpoint's locality's weight, for ring_hash (which has no weighted_target above it). */
  static final Attributes.Key<Integer> LOCALITY_WEIGHT =
      Attributes.Key.create("dev.tern.xds.lb.localityWeight");

  /** The endpoint's locality, {@code region/zone/sub_zone}. */
  static final Attributes.Key<String> LOCALITY = Attributes.Key.create("dev.tern.xds.lb.locality");

  private AddressPath() {}

  /** The groups whose path starts with {@code child}, with it removed from their path. */
  static List<EquivalentAddressGroup> under(List<EquivalentAddressGroup> groups, String child) {
    List<EquivalentAddressGroup> result = new ArrayList<>();
    for (EquivalentAddressGroup group : groups) {
      List<String> path = group.getAttributes().get(PATH);
      if (path != null && !path.isEmpty() && path.get(0).equals(child)) {
        Attributes rest =
            group.getAttributes().toBuilder()
                .set(PATH, List.copyOf(path.subList(1, path.size())))
                .build();
        result.add(new EquivalentAddressGroup(group.getAddresses(), rest));
      }
    }
    return result;
  }
}
