package dev.tern.xds.internal.lb;

import dev.tern.ClientStreamTracer;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.xds.internal.lrs.LocalityLoadCounter;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Counts a call into its locality's load (LRS): started when its stream is created, succeeded or
 * errored when it closes, and passes every event on to the tracer the child's pick asked for, if
 * any. Thread-safe: the counter is lock-free, and each stream's tracer finishes its call once.
 */
final class LoadReportTracer extends ForwardingStreamTracer {
  private final LocalityLoadCounter counter;
  private final AtomicBoolean finished = new AtomicBoolean();

  private LoadReportTracer(LocalityLoadCounter counter, ClientStreamTracer delegate) {
    super(delegate);
    this.counter = counter;
  }

  /** A factory counting into {@code counter} and wrapping {@code delegate}'s tracers (or none). */
  static ClientStreamTracer.Factory factory(
      LocalityLoadCounter counter, ClientStreamTracer.Factory delegate) {
    return new ClientStreamTracer.Factory() {
      @Override
      public ClientStreamTracer newClientStreamTracer(StreamInfo info, Metadata headers) {
        counter.callStarted();
        ClientStreamTracer inner =
            delegate == null ? null : delegate.newClientStreamTracer(info, headers);
        return new LoadReportTracer(counter, inner);
      }
    };
  }

  @Override
  public void streamClosed(Status status) {
    if (finished.compareAndSet(false, true)) {
      counter.callFinished(status.isOk());
    }
    super.streamClosed(status);
  }
}
