package dev.tern.xds.internal.lb;

import dev.tern.EquivalentAddressGroup;
import dev.tern.Status;
import dev.tern.xds.XdsEndpoints.DropOverload;
import java.util.List;

/**
 * What one discovery mechanism last found: its localities by priority (highest first) and its
 * drop_overloads, or the error that left it with nothing. Immutable; thread-safe.
 */
record Resolution(List<List<Locality>> priorities, List<DropOverload> drops, Status error) {
  /** A locality's name ({@code region/zone/sub_zone}), weight and usable endpoints. */
  record Locality(String name, int weight, List<EquivalentAddressGroup> endpoints) {
    Locality {
      endpoints = List.copyOf(endpoints);
    }
  }

  Resolution {
    priorities = priorities.stream().map(List::copyOf).toList();
    drops = List.copyOf(drops);
  }

  static Resolution of(List<List<Locality>> priorities, List<DropOverload> drops) {
    return new Resolution(priorities, drops, null);
  }

  static Resolution failed(Status error) {
    return new Resolution(List.of(), List.of(), error);
  }
}
