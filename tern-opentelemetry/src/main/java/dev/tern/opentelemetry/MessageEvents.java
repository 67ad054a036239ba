package dev.tern.opentelemetry;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;

/**
 * Turns one direction's message events into gRFC A72's span events. A message's sizes arrive one by
 * one (its number, its uncompressed size, its wire size, in an order that depends on the
 * direction), so the event of a message is added once all are known: when the next message starts,
 * when its last size arrives, or when the stream ends.
 *
 * <p>Outbound: one "Outbound message" event (sequence number, size, and the wire size when it
 * differs, that is when the message was compressed) on the attempt's or server call's span.
 * Inbound: "Inbound compressed message" (sequence number, wire size) on that span when the message
 * was compressed, and "Inbound message" (sequence number, size) on {@code messageSpan}: the client
 * call's span, or the server call's own.
 *
 * <p>Thread-safe: every method is synchronized (the writing thread and the thread that ends the
 * stream may both flush the outbound direction; the lock is uncontended otherwise). An outbound
 * flush takes the inbound lock inside its own; the inbound side never takes the outbound lock.
 */
final class MessageEvents {
  private final Span span;
  private final Span messageSpan;
  private final boolean outbound;

  /**
   * For the outbound direction: the inbound one's events, added first, so a received message whose
   * size never comes (a compressed one: its size is known only once the application reads it) still
   * appears before the reply it caused. Null for the inbound direction.
   */
  private final MessageEvents inbound;

  private long seqNo = -1;
  private long uncompressed = -1;
  private long wire = -1;

  private MessageEvents(Span span, Span messageSpan, boolean outbound, MessageEvents inbound) {
    this.span = span;
    this.messageSpan = messageSpan;
    this.outbound = outbound;
    this.inbound = inbound;
  }

  /** The inbound direction's events: compressed ones on {@code span}, others on messageSpan. */
  static MessageEvents inbound(Span span, Span messageSpan) {
    return new MessageEvents(span, messageSpan, false, null);
  }

  /** The outbound direction's events, on {@code span}, after {@code inbound}'s pending ones. */
  static MessageEvents outbound(Span span, MessageEvents inbound) {
    return new MessageEvents(span, span, true, inbound);
  }

  synchronized void message(int seqNo) {
    flush();
    this.seqNo = seqNo;
  }

  synchronized void uncompressedSize(long bytes) {
    uncompressed = bytes;
    if (!outbound) {
      flush(); // inbound: the uncompressed size comes last
    }
  }

  synchronized void wireSize(long bytes) {
    if (outbound) {
      if (seqNo >= 0) {
        wire = bytes;
        flush(); // outbound: the wire size comes last
      }
    } else {
      flush(); // inbound: it comes first, before its message's number
      wire = bytes;
    }
  }

  /** Adds the pending message's events, if any. */
  synchronized void flush() {
    if (seqNo < 0) {
      return;
    }
    boolean compressed = wire >= 0 && wire != uncompressed;
    if (outbound) {
      inbound.flush(); // lock order: outbound, then inbound (never the other way)
      long size = uncompressed >= 0 ? uncompressed : wire;
      span.addEvent(
          Spans.OUTBOUND_MESSAGE,
          compressed && uncompressed >= 0
              ? Attributes.of(
                  Spans.SEQUENCE_NUMBER, seqNo,
                  Spans.MESSAGE_SIZE, size,
                  Spans.MESSAGE_SIZE_COMPRESSED, wire)
              : Attributes.of(Spans.SEQUENCE_NUMBER, seqNo, Spans.MESSAGE_SIZE, size));
    } else {
      if (compressed) {
        span.addEvent(
            Spans.INBOUND_COMPRESSED_MESSAGE,
            Attributes.of(Spans.SEQUENCE_NUMBER, seqNo, Spans.MESSAGE_SIZE_COMPRESSED, wire));
      }
      messageSpan.addEvent(
          Spans.INBOUND_MESSAGE,
          uncompressed >= 0
              ? Attributes.of(Spans.SEQUENCE_NUMBER, seqNo, Spans.MESSAGE_SIZE, uncompressed)
              : Attributes.of(Spans.SEQUENCE_NUMBER, seqNo));
    }
    seqNo = -1;
    uncompressed = -1;
    wire = -1;
  }
}
