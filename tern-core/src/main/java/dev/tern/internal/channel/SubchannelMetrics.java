package dev.tern.internal.channel;

import dev.tern.Attributes;
import dev.tern.Grpc;
import dev.tern.MetricInstruments;
import dev.tern.MetricRecorder;
import dev.tern.SecurityLevel;
import dev.tern.Status;
import dev.tern.spi.ClientTransport;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * A subchannel's metrics of gRFC A94: connection attempts that succeeded or failed, connections
 * lost ({@code grpc.disconnect_error} says why) and connections open (by {@code
 * grpc.security_level}, from the transport's attributes). Labels: the channel's target; the backend
 * service and locality the subchannel's balancer set on its attributes ({@link
 * MetricInstruments#BACKEND_SERVICE_ATTRIBUTE}, {@link MetricInstruments#LOCALITY_ATTRIBUTE}), else
 * "". Without sinks each method returns at once.
 *
 * <p>Not thread-safe: used in the channel's synchronization context.
 */
final class SubchannelMetrics {
  private final MetricRecorder recorder;
  private final List<String> target;
  private final String backendService;
  private final String locality;
  private final List<String> attemptLabels;

  /**
   * Labels from the subchannel's attributes, else its first address group's ({@code
   * addressAttributes}).
   */
  SubchannelMetrics(MetricRecorder recorder, Attributes attributes, Attributes addressAttributes) {
    this.recorder = recorder;
    this.target = List.of(recorder.target());
    this.backendService =
        label(MetricInstruments.BACKEND_SERVICE_ATTRIBUTE, attributes, addressAttributes);
    this.locality = label(MetricInstruments.LOCALITY_ATTRIBUTE, attributes, addressAttributes);
    this.attemptLabels = List.of(backendService, locality);
  }

  private static String label(Attributes.Key<String> key, Attributes first, Attributes second) {
    String value = first.get(key);
    if (value == null) {
      value = second.get(key);
    }
    return value == null ? "" : value;
  }

  void attemptSucceeded() {
    if (!recorder.isEmpty()) {
      recorder.addLongCounter(
          MetricInstruments.SUBCHANNEL_CONNECTION_ATTEMPTS_SUCCEEDED, 1, target, attemptLabels);
    }
  }

  void attemptFailed() {
    if (!recorder.isEmpty()) {
      recorder.addLongCounter(
          MetricInstruments.SUBCHANNEL_CONNECTION_ATTEMPTS_FAILED, 1, target, attemptLabels);
    }
  }

  /** {@code transport} is READY: a connection opened. */
  void connectionOpened(ClientTransport transport) {
    if (!recorder.isEmpty()) {
      recorder.addLongUpDownCounter(
          MetricInstruments.SUBCHANNEL_OPEN_CONNECTIONS,
          1,
          target,
          List.of(securityLevel(transport), backendService, locality));
    }
  }

  /**
   * A READY connection closed, for the reason {@code status} gives (null: the subchannel or its
   * channel shut it down).
   */
  void disconnected(ClientTransport transport, Status status) {
    if (recorder.isEmpty()) {
      return;
    }
    recorder.addLongUpDownCounter(
        MetricInstruments.SUBCHANNEL_OPEN_CONNECTIONS,
        -1,
        target,
        List.of(securityLevel(transport), backendService, locality));
    recorder.addLongCounter(
        MetricInstruments.SUBCHANNEL_DISCONNECTIONS,
        1,
        target,
        List.of(backendService, locality, disconnectError(status)));
  }

  /** A94's {@code grpc.security_level} value of a transport (one that says none: "none"). */
  static String securityLevel(ClientTransport transport) {
    SecurityLevel level = transport.getAttributes().get(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL);
    if (level == null) {
      return "none";
    }
    return switch (level) {
      case NONE -> "none";
      case INTEGRITY -> "integrity_only";
      case PRIVACY_AND_INTEGRITY -> "privacy_and_integrity";
    };
  }

  /**
   * A94's {@code grpc.disconnect_error} value for a connection that ended with {@code status}:
   * {@code GOAWAY <code>}, {@code connection timed out} (keepalive), {@code connection reset},
   * {@code socket error}, {@code subchannel shutdown} (null), else {@code unknown}.
   */
  static String disconnectError(Status status) {
    if (status == null) {
      return "subchannel shutdown";
    }
    String description = status.getDescription() == null ? "" : status.getDescription();
    String goAway = "GOAWAY received: ";
    if (description.startsWith(goAway)) {
      int end = description.indexOf(',', goAway.length());
      return "GOAWAY "
          + description.substring(goAway.length(), end < 0 ? description.length() : end);
    }
    String lower = description.toLowerCase(Locale.ROOT);
    if (lower.contains("keepalive") || lower.contains("timed out")) {
      return "connection timed out";
    }
    Throwable cause = status.getCause();
    if (cause instanceof IOException) {
      String message = String.valueOf(cause.getMessage()).toLowerCase(Locale.ROOT);
      if (message.contains("reset")) {
        return "connection reset";
      }
      if (message.contains("timed out")) {
        return "connection timed out";
      }
      if (message.contains("abort")) {
        return "connection aborted";
      }
      return "socket error";
    }
    return "unknown";
  }
}
