package dev.tern.xds.internal.lb;

/** Provides {@code cds_experimental}. Stateless; thread-safe. */
public final class CdsProvider extends XdsBalancerProvider {
  static final String NAME = "cds_experimental";

  /** For ServiceLoader. */
  public CdsProvider() {
    super(NAME, CdsBalancer::new, CdsConfig::parse);
  }
}
