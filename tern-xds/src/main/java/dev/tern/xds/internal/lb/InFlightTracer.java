package dev.tern.xds.internal.lb;

import dev.tern.ClientStreamTracer;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.xds.internal.lrs.LocalityLoadCounter;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts a cluster's calls in flight for circuit breaking (gRFC A32): one more when a stream is
 * created, one less when it closes; when the cluster reports load (LRS), also counts the call into
 * its locality's load (started, then succeeded or errored). Passes every event on to the tracer the
 * child's pick asked for, if any. Thread-safe: the counts are atomic, and each stream's tracer
 * releases its slot once.
 */
final class InFlightTracer extends ForwardingStreamTracer {
  private final AtomicLong inFlight;
  private final LocalityLoadCounter load;
  private final AtomicBoolean released = new AtomicBoolean();

  private InFlightTracer(
      AtomicLong inFlight, LocalityLoadCounter load, ClientStreamTracer delegate) {
    super(delegate);
    this.inFlight = inFlight;
    this.load = load;
  }

  /** A factory counting into {@code inFlight} and wrapping {@code delegate}'s tracers (or none). */
  static ClientStreamTracer.Factory factory(
      AtomicLong inFlight, ClientStreamTracer.Factory delegate) {
    return factory(inFlight, null, delegate);
  }

  /**
   * A factory counting into {@code inFlight} and, unless null, into {@code load}, and wrapping
   * {@code delegate}'s tracers (or none).
   */
  static ClientStreamTracer.Factory factory(
      AtomicLong inFlight, LocalityLoadCounter load, ClientStreamTracer.Factory delegate) {
    return new ClientStreamTracer.Factory() {
      @Override
      public ClientStreamTracer newClientStreamTracer(StreamInfo info, Metadata headers) {
        inFlight.incrementAndGet();
        if (load != null) {
          load.callStarted();
        }
        ClientStreamTracer inner =
            delegate == null ? null : delegate.newClientStreamTracer(info, headers);
        return new InFlightTracer(inFlight, load, inner);
      }
    };
  }

  @Override
  public void streamClosed(Status status) {
    if (released.compareAndSet(false, true)) {
      inFlight.decrementAndGet();
      if (load != null) {
        load.callFinished(status.isOk());
      }
    }
    super.streamClosed(status);
  }
}
