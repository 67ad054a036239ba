package dev.tern.xds.internal.lb;

/** Provides {@code priority_experimental}. Stateless; thread-safe. */
public final class PriorityProvider extends XdsBalancerProvider {
  static final String NAME = "priority_experimental";

  /** For ServiceLoader. */
  public PriorityProvider() {
    super(NAME, PriorityBalancer::new, PriorityConfig::parse);
  }
}
