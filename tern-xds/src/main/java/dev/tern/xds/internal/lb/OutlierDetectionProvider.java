package dev.tern.xds.internal.lb;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Provides {@code outlier_detection_experimental} (gRFC A50), usable on its own in a service
 * config's {@code loadBalancingConfig} as well as under the xDS cluster resolver; ejection times on
 * {@link System#nanoTime}, enforcement draws from ThreadLocalRandom. Stateless; thread-safe.
 */
public final class OutlierDetectionProvider extends XdsBalancerProvider {
  static final String NAME = "outlier_detection_experimental";

  /** For ServiceLoader. */
  public OutlierDetectionProvider() {
    super(
        NAME,
        helper ->
            new OutlierDetectionBalancer(
                helper, System::nanoTime, bound -> ThreadLocalRandom.current().nextInt(bound)),
        OutlierDetectionConfig::parse);
  }
}
