package dev.tern.opentelemetry;

import dev.tern.MetricInstruments;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import java.util.Set;

/**
 * The optional labels of the per-attempt client metrics ({@code grpc.client.attempt.duration} and
 * the two attempt message-size histograms) that the user enabled with {@link
 * GrpcOpenTelemetry.Builder#addOptionalLabel}: gRFC A78's {@code grpc.lb.locality} and A89's {@code
 * grpc.lb.backend_service}, whose values the balancer's pick gives the attempt's tracer. An enabled
 * label that no pick named (a channel without xDS, an attempt that never reached a balancer) says
 * "", as the gRFCs ask.
 *
 * <p>Immutable; thread-safe.
 */
final class AttemptLabels {
  static final AttributeKey<String> LOCALITY = AttributeKey.stringKey(MetricInstruments.LOCALITY);
  static final AttributeKey<String> BACKEND_SERVICE =
      AttributeKey.stringKey(MetricInstruments.BACKEND_SERVICE);

  /** The optional labels the per-attempt metrics can carry. */
  static final Set<String> KEYS =
      Set.of(MetricInstruments.LOCALITY, MetricInstruments.BACKEND_SERVICE);

  private final boolean locality;
  private final boolean backendService;

  AttemptLabels(Set<String> enabled) {
    this.locality = enabled.contains(MetricInstruments.LOCALITY);
    this.backendService = enabled.contains(MetricInstruments.BACKEND_SERVICE);
  }

  /** Whether any is enabled: if not, attempts record their cached attributes as they are. */
  boolean any() {
    return locality || backendService;
  }

  /**
   * {@code attributes} with the enabled labels set to {@code localityValue} and {@code
   * backendServiceValue} (null: "").
   */
  Attributes add(Attributes attributes, String localityValue, String backendServiceValue) {
    if (!any()) {
      return attributes;
    }
    AttributesBuilder builder = attributes.toBuilder();
    if (locality) {
      builder.put(LOCALITY, localityValue == null ? "" : localityValue);
    }
    if (backendService) {
      builder.put(BACKEND_SERVICE, backendServiceValue == null ? "" : backendServiceValue);
    }
    return builder.build();
  }
}
