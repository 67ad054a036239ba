package dev.tern.xds.internal.lb;

import dev.tern.xds.XdsFeatures;

/**
 * Provides {@code ring_hash_experimental} (gRFC A42), available unless the switch {@code
 * GRPC_XDS_EXPERIMENTAL_ENABLE_RING_HASH} turns it off ({@link XdsFeatures#ringHash()}). Stateless;
 * thread-safe.
 */
public final class RingHashProvider extends XdsBalancerProvider {
  static final String NAME = "ring_hash_experimental";

  private final boolean available;

  /** For ServiceLoader. */
  public RingHashProvider() {
    this(XdsFeatures.current().ringHash());
  }

  RingHashProvider(boolean available) {
    super(NAME, RingHashBalancer::new, RingHashConfig::parse);
    this.available = available;
  }

  @Override
  public boolean isAvailable() {
    return available;
  }
}
