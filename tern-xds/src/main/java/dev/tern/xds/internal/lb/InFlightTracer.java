package dev.tern.xds.internal.lb;

import dev.tern.Attributes;
import dev.tern.ClientStreamTracer;
import dev.tern.Metadata;
import dev.tern.Status;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts a cluster's calls in flight for circuit breaking (gRFC A32): one more when a stream is
 * created, one less when it closes, and passes every event on to the tracer the child's pick asked
 * for, if any. Thread-safe: the count is atomic, and each stream's tracer releases its slot once.
 */
final class InFlightTracer extends ClientStreamTracer {
  private final AtomicLong inFlight;
  private final ClientStreamTracer delegate;
  private final AtomicBoolean released = new AtomicBoolean();

  private InFlightTracer(AtomicLong inFlight, ClientStreamTracer delegate) {
    this.inFlight = inFlight;
    this.delegate = delegate;
  }

  /** A factory counting into {@code inFlight} and wrapping {@code delegate}'s tracers (or none). */
  static ClientStreamTracer.Factory factory(
      AtomicLong inFlight, ClientStreamTracer.Factory delegate) {
    return new ClientStreamTracer.Factory() {
      @Override
      public ClientStreamTracer newClientStreamTracer(StreamInfo info, Metadata headers) {
        inFlight.incrementAndGet();
        ClientStreamTracer inner =
            delegate == null ? null : delegate.newClientStreamTracer(info, headers);
        return new InFlightTracer(inFlight, inner);
      }
    };
  }

  @Override
  public void streamClosed(Status status) {
    if (released.compareAndSet(false, true)) {
      inFlight.decrementAndGet();
    }
    if (delegate != null) {
      delegate.streamClosed(status);
    }
  }

  @Override
  public void streamCreated(Attributes transportAttrs, Metadata headers) {
    if (delegate != null) {
      delegate.streamCreated(transportAttrs, headers);
    }
  }

  @Override
  public void outboundHeaders() {
    if (delegate != null) {
      delegate.outboundHeaders();
    }
  }

  @Override
  public void inboundHeaders(Metadata headers) {
    if (delegate != null) {
      delegate.inboundHeaders(headers);
    }
  }

  @Override
  public void inboundTrailers(Metadata trailers) {
    if (delegate != null) {
      delegate.inboundTrailers(trailers);
    }
  }

  @Override
  public void outboundMessage(int seqNo) {
    if (delegate != null) {
      delegate.outboundMessage(seqNo);
    }
  }

  @Override
  public void inboundMessage(int seqNo) {
    if (delegate != null) {
      delegate.inboundMessage(seqNo);
    }
  }

  @Override
  public void outboundWireSize(long bytes) {
    if (delegate != null) {
      delegate.outboundWireSize(bytes);
    }
  }

  @Override
  public void outboundUncompressedSize(long bytes) {
    if (delegate != null) {
      delegate.outboundUncompressedSize(bytes);
    }
  }

  @Override
  public void inboundWireSize(long bytes) {
    if (delegate != null) {
      delegate.inboundWireSize(bytes);
    }
  }

  @Override
  public void inboundUncompressedSize(long bytes) {
    if (delegate != null) {
      delegate.inboundUncompressedSize(bytes);
    }
  }
}
