package dev.tern.xds.internal.lb;

import dev.tern.Attributes;
import dev.tern.EquivalentAddressGroup;
import dev.tern.MetricInstruments;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.xds.ResourceWatcher;
import dev.tern.xds.XdsClient;
import dev.tern.xds.XdsEndpoints;
import dev.tern.xds.XdsResourceType;
import dev.tern.xds.internal.XdsAttributes;
import dev.tern.xds.internal.lrs.LrsLocality;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * An EDS discovery mechanism: watches the cluster's ClusterLoadAssignment and turns it into
 * localities by priority, leaving out endpoints whose health is UNHEALTHY, DRAINING or TIMEOUT. An
 * error after a good value keeps the value (A27). The XdsClient calls the watcher in its own
 * context; every call is moved into the channel's synchronization context, where all state lives.
 */
final class EdsWatch implements DiscoveryMechanismWatch {
  private final XdsClient client;
  private final String resourceName;
  private final SynchronizationContext syncContext;
  private final Runnable onChange;
  private final Watcher watcher = new Watcher();
  private Resolution resolution;
  private boolean shutdown;

  EdsWatch(
      XdsClient client,
      String resourceName,
      SynchronizationContext syncContext,
      Runnable onChange) {
    this.client = client;
    this.resourceName = resourceName;
    this.syncContext = syncContext;
    this.onChange = onChange;
    client.watch(XdsResourceType.ENDPOINTS, resourceName, watcher);
  }

  @Override
  public Resolution resolution() {
    return resolution;
  }

  @Override
  public void refresh() {}

  @Override
  public void shutdown() {
    shutdown = true;
    client.cancelWatch(XdsResourceType.ENDPOINTS, resourceName, watcher);
  }

  /** gRFC A78's {@code grpc.lb.locality} value: {@code {region="r", zone="z", sub_zone="s"}}. */
  static String localityLabel(XdsEndpoints.LocalityEndpoints locality) {
    return "{region=\""
        + locality.region()
        + "\", zone=\""
        + locality.zone()
        + "\", sub_zone=\""
        + locality.subZone()
        + "\"}";
  }

  /** The endpoints as localities grouped by priority, with the attributes the tree needs. */
  static Resolution toResolution(XdsEndpoints endpoints) {
    TreeMap<Integer, List<Resolution.Locality>> byPriority = new TreeMap<>();
    for (XdsEndpoints.LocalityEndpoints locality : endpoints.localities()) {
      String name = locality.region() + "/" + locality.zone() + "/" + locality.subZone();
      List<EquivalentAddressGroup> groups = new ArrayList<>();
      for (XdsEndpoints.Endpoint endpoint : locality.endpoints()) {
        if (!endpoint.health().usable()) {
          continue;
        }
        Attributes.Builder attributes =
            Attributes.newBuilder()
                .set(AddressPath.LOCALITY, name)
                .set(MetricInstruments.LOCALITY_ATTRIBUTE, localityLabel(locality))
                .set(
                    LrsLocality.KEY,
                    new LrsLocality(locality.region(), locality.zone(), locality.subZone()))
                .set(AddressPath.ENDPOINT_WEIGHT, Math.max(1, endpoint.weight()));
        if (!endpoint.hostname().isEmpty()) {
          attributes.set(XdsAttributes.ENDPOINT_HOSTNAME, endpoint.hostname());
        }
        groups.add(
            new EquivalentAddressGroup(
                List.of(new InetSocketAddress(endpoint.host(), endpoint.port())),
                attributes.build()));
      }
      byPriority
          .computeIfAbsent(locality.priority(), p -> new ArrayList<>())
          .add(new Resolution.Locality(name, locality.weight(), groups));
    }
    return Resolution.of(new ArrayList<>(byPriority.values()), endpoints.dropOverloads());
  }

  private void set(Resolution next) {
    if (!shutdown) {
      resolution = next;
      onChange.run();
    }
  }

  private final class Watcher implements ResourceWatcher<XdsEndpoints> {
    @Override
    public void onChanged(XdsEndpoints endpoints) {
      Resolution next = toResolution(endpoints);
      syncContext.execute(() -> set(next));
    }

    @Override
    public void onError(Status error) {
      syncContext.execute(
          () -> {
            if (resolution == null || resolution.error() != null) {
              set(
                  Resolution.failed(
                      Status.UNAVAILABLE.withDescription(
                          "EDS resource " + resourceName + ": " + error.getDescription())));
            }
          });
    }

    @Override
    public void onResourceDoesNotExist(String name) {
      syncContext.execute(
          () ->
              set(
                  Resolution.failed(
                      Status.UNAVAILABLE.withDescription(
                          "EDS resource " + resourceName + " does not exist"))));
    }
  }
}
