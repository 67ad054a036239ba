package dev.tern.opentelemetry;

import dev.tern.ClientStreamTracer;
import dev.tern.Status;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;

/**
 * One attempt of a client call: counts its message bytes each way, records its duration and sizes
 * with its status when it closes, and adds its message events to its span.
 *
 * <p>Thread-safe as {@link ClientStreamTracer} requires: outbound and inbound events each come from
 * one thread at a time; what they share is volatile or synchronized.
 */
final class ClientAttemptTracer extends ClientStreamTracer {
  private final Instruments instruments;
  private final MethodAttributes attributes;
  private final long startNanos = System.nanoTime();
  private final MessageSizes sent = new MessageSizes();
  private final MessageSizes received = new MessageSizes();
  private final Span span; // null without tracing
  private final MessageEvents outboundEvents;
  private final MessageEvents inboundEvents;

  ClientAttemptTracer(
      Instruments instruments, MethodAttributes attributes, Span span, Span callSpan) {
    this.instruments = instruments;
    this.attributes = attributes;
    this.span = span;
    this.inboundEvents = span == null ? null : MessageEvents.inbound(span, callSpan);
    this.outboundEvents = span == null ? null : MessageEvents.outbound(span, inboundEvents);
  }

  @Override
  public void outboundMessage(int seqNo) {
    if (outboundEvents != null) {
      outboundEvents.message(seqNo);
    }
  }

  @Override
  public void outboundUncompressedSize(long bytes) {
    sent.uncompressed(bytes);
    if (outboundEvents != null) {
      outboundEvents.uncompressedSize(bytes);
    }
  }

  @Override
  public void outboundWireSize(long bytes) {
    sent.wire(bytes);
    if (outboundEvents != null) {
      outboundEvents.wireSize(bytes);
    }
  }

  @Override
  public void inboundMessage(int seqNo) {
    if (inboundEvents != null) {
      inboundEvents.message(seqNo);
    }
  }

  @Override
  public void inboundWireSize(long bytes) {
    received.wire(bytes);
    if (inboundEvents != null) {
      inboundEvents.wireSize(bytes);
    }
  }

  @Override
  public void inboundUncompressedSize(long bytes) {
    received.uncompressed(bytes);
    if (inboundEvents != null) {
      inboundEvents.uncompressedSize(bytes);
    }
  }

  @Override
  public void streamClosed(Status status) {
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    record(
        instruments,
        attributes.withStatus(status.getCode()),
        seconds,
        sent.total(),
        received.total());
    if (span != null) {
      outboundEvents.flush();
      inboundEvents.flush();
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
