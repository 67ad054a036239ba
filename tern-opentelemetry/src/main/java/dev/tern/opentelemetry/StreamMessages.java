package dev.tern.opentelemetry;

import io.opentelemetry.api.trace.Span;

/**
 * What one stream's messages add up to, each way: the byte totals for the size metrics and, when
 * the stream is traced, A72's message events. The client attempt and server call tracers pass their
 * message events here.
 *
 * <p>Thread-safe as stream tracers need: each direction's events come from one thread at a time
 * ({@link MessageSizes}, {@link MessageEvents}).
 */
final class StreamMessages {
  private final MessageSizes sent = new MessageSizes();
  private final MessageSizes received = new MessageSizes();
  private final MessageEvents outboundEvents; // null when not traced
  private final MessageEvents inboundEvents; // null when not traced

  /**
   * @param span the stream's span, or null when not traced
   * @param inboundMessageSpan where "Inbound message" events go (the client call's span, or {@code
   *     span})
   */
  StreamMessages(Span span, Span inboundMessageSpan) {
    inboundEvents = span == null ? null : MessageEvents.inbound(span, inboundMessageSpan);
    outboundEvents = span == null ? null : MessageEvents.outbound(span, inboundEvents);
  }

  void outboundMessage(int seqNo) {
    if (outboundEvents != null) {
      outboundEvents.message(seqNo);
    }
  }

  void outboundUncompressedSize(long bytes) {
    sent.uncompressed(bytes);
    if (outboundEvents != null) {
      outboundEvents.uncompressedSize(bytes);
    }
  }

  void outboundWireSize(long bytes) {
    sent.wire(bytes);
    if (outboundEvents != null) {
      outboundEvents.wireSize(bytes);
    }
  }

  void inboundMessage(int seqNo) {
    if (inboundEvents != null) {
      inboundEvents.message(seqNo);
    }
  }

  void inboundWireSize(long bytes) {
    received.wire(bytes);
    if (inboundEvents != null) {
      inboundEvents.wireSize(bytes);
    }
  }

  void inboundUncompressedSize(long bytes) {
    received.uncompressed(bytes);
    if (inboundEvents != null) {
      inboundEvents.uncompressedSize(bytes);
    }
  }

  long sentBytes() {
    return sent.total();
  }

  long receivedBytes() {
    return received.total();
  }

  /** Adds the events of messages whose last size never came; before the span ends. */
  void flushEvents() {
    if (inboundEvents != null) {
      inboundEvents.flush();
      outboundEvents.flush();
    }
  }
}
