package dev.tern.xds;

import dev.tern.MetricInstrument;
import dev.tern.MetricInstruments;
import dev.tern.MetricRecorder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * gRFC A78's two gauges of an {@link XdsClient}: {@code grpc.xds_client.connected}, per control
 * plane in use, and {@code grpc.xds_client.resources}, the subscribed resources counted by
 * authority, cache state and type. The client publishes the values from its synchronization context
 * after each change ({@link #publish}); a sink reads the last published values when it collects, on
 * its own thread, without waiting for the client or touching its state.
 *
 * <p>Thread-safety: {@link #publish} and {@link #close} are called only from the client's
 * synchronization context; {@link #collect} may run on any thread (it reads one volatile field).
 */
final class XdsClientGauges implements MetricRecorder.BatchCallback {
  /** What A78 calls the authority of a name that is not {@code xdstp:}. */
  static final String OLD_STYLE_AUTHORITY = "#old";

  private record Row(MetricInstrument gauge, List<String> labels, long value) {}

  private final String target;
  private final MetricRecorder.Registration registration;
  private volatile List<Row> rows = List.of();

  XdsClientGauges(MetricRecorder recorder) {
    this.target = recorder.target();
    this.registration =
        recorder.registerBatchCallback(
            this, MetricInstruments.XDS_CLIENT_CONNECTED, MetricInstruments.XDS_CLIENT_RESOURCES);
  }

  /**
   * Takes the current values: 1 for each active connection that has not failed since its last
   * response (A57), 0 for one that has; the count of resources per label set.
   */
  void publish(
      Collection<ControlPlaneConnection> connections,
      Collection<Map<String, ResourceState<?>>> resources) {
    List<Row> next = new ArrayList<>();
    for (ControlPlaneConnection connection : connections) {
      if (connection.active()) {
        next.add(
            new Row(
                MetricInstruments.XDS_CLIENT_CONNECTED,
                List.of(target, connection.server().serverUri()),
                connection.unreachable() ? 0 : 1));
      }
    }
    Map<List<String>, Long> counts = new LinkedHashMap<>();
    for (Map<String, ResourceState<?>> byName : resources) {
      for (ResourceState<?> resource : byName.values()) {
        String authority = XdsClient.authorityName(resource.name);
        List<String> labels =
            List.of(
                target,
                authority == null ? OLD_STYLE_AUTHORITY : authority,
                resource.cacheState(),
                typeLabel(resource.type));
        counts.merge(labels, 1L, Long::sum);
      }
    }
    counts.forEach(
        (labels, count) ->
            next.add(new Row(MetricInstruments.XDS_CLIENT_RESOURCES, labels, count)));
    rows = List.copyOf(next);
  }

  @Override
  public void collect(MetricRecorder.BatchRecorder recorder) {
    for (Row row : rows) {
      recorder.recordLongGauge(row.gauge(), row.value(), row.labels(), List.of());
    }
  }

  /** Stops the sinks' calls (the client closed). */
  void close() {
    registration.close();
    rows = List.of();
  }

  /** A78's {@code grpc.xds.resource_type}: {@code envoy.config.cluster.v3.Cluster}. */
  static String typeLabel(XdsResourceType<?> type) {
    String url = type.typeUrl();
    return url.substring(url.lastIndexOf('/') + 1);
  }
}
