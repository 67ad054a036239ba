package dev.tern.xds.internal.lb;

import dev.tern.ClientStreamTracer;
import dev.tern.Metadata;
import dev.tern.Status;

/**
 * Counts a call's result for outlier detection when its stream closes: OK is a success, any other
 * status a failure (gRFC A50 counts call results without singling out codes), into the entry of the
 * picked subchannel's address at that moment (none if it no longer has one). Passes every event on
 * to the child pick's own tracer, if any. Thread-safe; without a delegate it keeps no per-stream
 * state, so one instance serves every stream of a subchannel.
 */
final class OutlierCallTracer extends ForwardingStreamTracer {
  private final OutlierSubchannel subchannel;

  OutlierCallTracer(OutlierSubchannel subchannel, ClientStreamTracer delegate) {
    super(delegate);
    this.subchannel = subchannel;
  }

  /** A factory counting for {@code subchannel} and wrapping {@code delegate}'s tracers. */
  static ClientStreamTracer.Factory factory(
      OutlierSubchannel subchannel, ClientStreamTracer.Factory delegate) {
    if (delegate == null) {
      return subchannel.countingFactory();
    }
    return new ClientStreamTracer.Factory() {
      @Override
      public ClientStreamTracer newClientStreamTracer(StreamInfo info, Metadata headers) {
        return new OutlierCallTracer(subchannel, delegate.newClientStreamTracer(info, headers));
      }
    };
  }

  @Override
  public void streamClosed(Status status) {
    OutlierEndpoint endpoint = subchannel.endpoint();
    if (endpoint != null) {
      endpoint.counter().record(status.isOk());
    }
    super.streamClosed(status);
  }
}
