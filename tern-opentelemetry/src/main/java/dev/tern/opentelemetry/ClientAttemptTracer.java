package dev.tern.opentelemetry;

import dev.tern.ClientStreamTracer;
import dev.tern.MetricInstruments;
import dev.tern.Status;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;

/**
 * One attempt of a client call: counts its message bytes each way, records its duration and sizes
 * with its status (and the optional labels its balancer's pick named, when enabled: {@link
 * AttemptLabels}) when it closes, and adds its message events to its span.
 *
 * <p>Thread-safe as {@link ClientStreamTracer} requires: outbound and inbound events each come from
 * one thread at a time; what they share is volatile or synchronized.
 */
final class ClientAttemptTracer extends ClientStreamTracer {
  private final Instruments instruments;
  private final MethodAttributes attributes;
  private final long startNanos = System.nanoTime();
  private final Span span; // null without tracing
  private final StreamMessages messages;
  private volatile String locality; // null until the pick names it
  private volatile String backendService; // null until the pick names it

  ClientAttemptTracer(
      Instruments instruments, MethodAttributes attributes, Span span, Span callSpan) {
    this.instruments = instruments;
    this.attributes = attributes;
    this.span = span;
    this.messages = new StreamMessages(span, callSpan);
  }

  @Override
  public void addOptionalLabel(String key, String value) {
    if (key.equals(MetricInstruments.LOCALITY)) {
      locality = value;
    } else if (key.equals(MetricInstruments.BACKEND_SERVICE)) {
      backendService = value;
    }
  }

  @Override
  public void outboundMessage(int seqNo) {
    messages.outboundMessage(seqNo);
  }

  @Override
  public void outboundUncompressedSize(long bytes) {
    messages.outboundUncompressedSize(bytes);
  }

  @Override
  public void outboundWireSize(long bytes) {
    messages.outboundWireSize(bytes);
  }

  @Override
  public void inboundMessage(int seqNo) {
    messages.inboundMessage(seqNo);
  }

  @Override
  public void inboundWireSize(long bytes) {
    messages.inboundWireSize(bytes);
  }

  @Override
  public void inboundUncompressedSize(long bytes) {
    messages.inboundUncompressedSize(bytes);
  }

  @Override
  public void attemptThrottled() {
    if (instruments.clientAttemptThrottled != null) {
      instruments.clientAttemptThrottled.add(1, attributes.base());
    }
  }

  @Override
  public void streamClosed(Status status) {
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    record(
        instruments,
        instruments.attemptLabels.add(
            attributes.withStatus(status.getCode()), locality, backendService),
        seconds,
        messages.sentBytes(),
        messages.receivedBytes());
    if (span != null) {
      messages.flushEvents();
      Spans.end(span, status);
    }
  }

  /** Records one attempt's metrics. */
  static void record(
      Instruments instruments, Attributes withStatus, double seconds, long sent, long received) {
    if (instruments.clientAttemptDuration != null) {
      instruments.clientAttemptDuration.record(seconds, withStatus);
    }
    if (instruments.clientAttemptSentSize != null) {
      instruments.clientAttemptSentSize.record(sent, withStatus);
    }
    if (instruments.clientAttemptRcvdSize != null) {
      instruments.clientAttemptRcvdSize.record(received, withStatus);
    }
  }

  @Override
  public String toString() {
    return "ClientAttemptTracer{" + attributes.base() + "}";
  }
}
