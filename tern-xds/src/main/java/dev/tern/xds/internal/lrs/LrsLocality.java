package dev.tern.xds.internal.lrs;

import dev.tern.Attributes;
import java.util.Objects;

/**
 * Where an endpoint is, as a load report names it ({@code envoy.config.core.v3.Locality}): EDS
 * localities carry it on their endpoints' address groups ({@link #KEY}); endpoints without one (a
 * LOGICAL_DNS cluster's) report under {@link #EMPTY}. Immutable; thread-safe.
 */
public record LrsLocality(String region, String zone, String subZone) {
  /** The address-group attribute holding an endpoint's locality. */
  public static final Attributes.Key<LrsLocality> KEY =
      Attributes.Key.create("dev.tern.xds.lrs.locality");

  /** No locality. */
  public static final LrsLocality EMPTY = new LrsLocality("", "", "");

  public LrsLocality {
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(zone, "zone");
    Objects.requireNonNull(subZone, "subZone");
  }

  io.envoyproxy.envoy.config.core.v3.Locality toProto() {
    return io.envoyproxy.envoy.config.core.v3.Locality.newBuilder()
        .setRegion(region)
        .setZone(zone)
        .setSubZone(subZone)
        .build();
  }
}
