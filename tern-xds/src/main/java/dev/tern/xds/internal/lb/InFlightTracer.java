package dev.tern.xds.internal.lb;

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
final class InFlightTracer extends ForwardingStreamTracer {
  private final AtomicLong inFlight;
  private final AtomicBoolean released = new AtomicBoolean();

  private InFlightTracer(AtomicLong inFlight, ClientStreamTracer delegate) {
    super(delegate);
    this.inFlight = inFlight;
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
    super.streamClosed(status);
  }
}
