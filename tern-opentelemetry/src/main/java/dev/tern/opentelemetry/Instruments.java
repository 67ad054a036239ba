package dev.tern.opentelemetry;

import dev.tern.ServerStreamTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongHistogram;
import io.opentelemetry.api.metrics.Meter;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The metrics of gRFC A66, Tern's count of calls its server refused at admission and of attempts
 * its client's adaptive throttling refused: their names, units and histogram boundaries (given to
 * the SDK as advice, which a view may override), made from one meter, and the optional labels
 * enabled on the attempt metrics. An instrument that is not enabled is null.
 *
 * <p>Immutable; thread-safe (OpenTelemetry instruments are).
 */
final class Instruments {
  static final String CLIENT_ATTEMPT_STARTED = "grpc.client.attempt.started";
  static final String CLIENT_ATTEMPT_DURATION = "grpc.client.attempt.duration";
  static final String CLIENT_ATTEMPT_SENT_SIZE =
      "grpc.client.attempt.sent_total_compressed_message_size";
  static final String CLIENT_ATTEMPT_RCVD_SIZE =
      "grpc.client.attempt.rcvd_total_compressed_message_size";
  static final String CLIENT_CALL_DURATION = "grpc.client.call.duration";
  static final String SERVER_CALL_STARTED = "grpc.server.call.started";
  static final String SERVER_CALL_DURATION = "grpc.server.call.duration";
  static final String SERVER_CALL_SENT_SIZE = "grpc.server.call.sent_total_compressed_message_size";
  static final String SERVER_CALL_RCVD_SIZE = "grpc.server.call.rcvd_total_compressed_message_size";

  /** Tern's own (A66 has none): calls the server refused before their handler ran, by reason. */
  static final String SERVER_CALL_REFUSED = "tern.server.call.refused";

  /** Tern's own: client call attempts the channel's adaptive throttling refused, never sent. */
  static final String CLIENT_ATTEMPT_THROTTLED = "tern.client.attempt.throttled";

  /** The metrics recorded unless disabled: all of A66's, and Tern's refused and throttled calls. */
  static final Set<String> DEFAULT_METRICS =
      Set.of(
          CLIENT_ATTEMPT_STARTED,
          CLIENT_ATTEMPT_DURATION,
          CLIENT_ATTEMPT_SENT_SIZE,
          CLIENT_ATTEMPT_RCVD_SIZE,
          CLIENT_CALL_DURATION,
          CLIENT_ATTEMPT_THROTTLED,
          SERVER_CALL_STARTED,
          SERVER_CALL_DURATION,
          SERVER_CALL_SENT_SIZE,
          SERVER_CALL_RCVD_SIZE,
          SERVER_CALL_REFUSED);

  static final AttributeKey<String> METHOD = AttributeKey.stringKey("grpc.method");
  static final AttributeKey<String> STATUS = AttributeKey.stringKey("grpc.status");
  static final AttributeKey<String> TARGET = AttributeKey.stringKey("grpc.target");
  static final AttributeKey<String> REFUSAL = AttributeKey.stringKey("tern.refusal");

  /**
   * The attributes of {@link #SERVER_CALL_REFUSED} by {@link ServerStreamTracer.Refusal} ordinal:
   * the reason in lower case ({@code deadline_passed_on_arrival}, {@code deadline_passed_in_queue},
   * {@code max_concurrent_calls}, {@code adaptive_concurrency_limit}, {@code
   * deadline_shorter_than_recent_latency}).
   */
  static final List<Attributes> REFUSAL_ATTRIBUTES =
      Arrays.stream(ServerStreamTracer.Refusal.values())
          .map(r -> Attributes.of(REFUSAL, r.name().toLowerCase(Locale.ROOT)))
          .toList();

  /** A66's latency boundaries, in seconds. */
  static final List<Double> LATENCY_BUCKETS =
      List.of(
          0.0, 0.00001, 0.00005, 0.0001, 0.0003, 0.0006, 0.0008, 0.001, 0.002, 0.003, 0.004, 0.005,
          0.006, 0.008, 0.01, 0.013, 0.016, 0.02, 0.025, 0.03, 0.04, 0.05, 0.065, 0.08, 0.1, 0.13,
          0.16, 0.2, 0.25, 0.3, 0.4, 0.5, 0.65, 0.8, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0);

  /** A66's size boundaries, in bytes: 0, then 1 KiB to 4 GiB. */
  static final List<Long> SIZE_BUCKETS =
      List.of(
          0L,
          1024L,
          2048L,
          4096L,
          16384L,
          65536L,
          262144L,
          1048576L,
          4194304L,
          16777216L,
          67108864L,
          268435456L,
          1073741824L,
          4294967296L);

  final LongCounter clientAttemptStarted;
  final DoubleHistogram clientAttemptDuration;
  final LongHistogram clientAttemptSentSize;
  final LongHistogram clientAttemptRcvdSize;
  final DoubleHistogram clientCallDuration;
  final LongCounter clientAttemptThrottled;
  final LongCounter serverCallStarted;
  final DoubleHistogram serverCallDuration;
  final LongHistogram serverCallSentSize;
  final LongHistogram serverCallRcvdSize;
  final LongCounter serverCallRefused;

  /** The optional labels enabled on the per-attempt metrics. */
  final AttemptLabels attemptLabels;

  /**
   * @param enabled the metrics to record
   * @param optionalLabels the optional labels the user enabled (those of the attempt metrics count)
   */
  Instruments(Meter meter, Set<String> enabled, Set<String> optionalLabels) {
    attemptLabels = new AttemptLabels(optionalLabels);
    clientAttemptStarted =
        enabled.contains(CLIENT_ATTEMPT_STARTED)
            ? counter(meter, CLIENT_ATTEMPT_STARTED, "Client call attempts started", "{attempt}")
            : null;
    clientAttemptDuration =
        enabled.contains(CLIENT_ATTEMPT_DURATION)
            ? latency(
                meter,
                CLIENT_ATTEMPT_DURATION,
                "How long each client call attempt took, from its creation to its status")
            : null;
    clientAttemptSentSize =
        enabled.contains(CLIENT_ATTEMPT_SENT_SIZE)
            ? size(
                meter,
                CLIENT_ATTEMPT_SENT_SIZE,
                "Message bytes a client call attempt sent, as on the wire (compressed, unframed)")
            : null;
    clientAttemptRcvdSize =
        enabled.contains(CLIENT_ATTEMPT_RCVD_SIZE)
            ? size(
                meter,
                CLIENT_ATTEMPT_RCVD_SIZE,
                "Message bytes a client call attempt received, as on the wire (compressed, unframed)")
            : null;
    clientCallDuration =
        enabled.contains(CLIENT_CALL_DURATION)
            ? latency(
                meter,
                CLIENT_CALL_DURATION,
                "How long each client call took as the application saw it, all attempts included")
            : null;
    clientAttemptThrottled =
        enabled.contains(CLIENT_ATTEMPT_THROTTLED)
            ? counter(
                meter,
                CLIENT_ATTEMPT_THROTTLED,
                "Client call attempts the channel's adaptive throttling refused, never sent",
                "{attempt}")
            : null;
    serverCallStarted =
        enabled.contains(SERVER_CALL_STARTED)
            ? counter(meter, SERVER_CALL_STARTED, "Server calls started", "{call}")
            : null;
    serverCallDuration =
        enabled.contains(SERVER_CALL_DURATION)
            ? latency(
                meter,
                SERVER_CALL_DURATION,
                "How long each server call took, from its headers arriving to its status leaving")
            : null;
    serverCallSentSize =
        enabled.contains(SERVER_CALL_SENT_SIZE)
            ? size(
                meter,
                SERVER_CALL_SENT_SIZE,
                "Message bytes a server call sent, as on the wire (compressed, unframed)")
            : null;
    serverCallRcvdSize =
        enabled.contains(SERVER_CALL_RCVD_SIZE)
            ? size(
                meter,
                SERVER_CALL_RCVD_SIZE,
                "Message bytes a server call received, as on the wire (compressed, unframed)")
            : null;
    serverCallRefused =
        enabled.contains(SERVER_CALL_REFUSED)
            ? counter(
                meter,
                SERVER_CALL_REFUSED,
                "Server calls refused before their handler ran (deadline passed, limit reached)",
                "{call}")
            : null;
  }

  /** Whether any client metric is recorded. */
  boolean anyClient() {
    return clientAttemptStarted != null
        || clientAttemptDuration != null
        || clientAttemptSentSize != null
        || clientAttemptRcvdSize != null
        || clientCallDuration != null
        || clientAttemptThrottled != null;
  }

  /** Whether any server metric is recorded. */
  boolean anyServer() {
    return serverCallStarted != null
        || serverCallDuration != null
        || serverCallSentSize != null
        || serverCallRcvdSize != null
        || serverCallRefused != null;
  }

  private static LongCounter counter(Meter meter, String name, String description, String unit) {
    return meter.counterBuilder(name).setDescription(description).setUnit(unit).build();
  }

  private static DoubleHistogram latency(Meter meter, String name, String description) {
    return meter
        .histogramBuilder(name)
        .setDescription(description)
        .setUnit("s")
        .setExplicitBucketBoundariesAdvice(LATENCY_BUCKETS)
        .build();
  }

  private static LongHistogram size(Meter meter, String name, String description) {
    return meter
        .histogramBuilder(name)
        .ofLongs()
        .setDescription(description)
        .setUnit("By")
        .setExplicitBucketBoundariesAdvice(SIZE_BUCKETS)
        .build();
  }
}
