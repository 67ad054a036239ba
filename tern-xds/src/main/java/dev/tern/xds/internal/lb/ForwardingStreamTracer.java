package dev.tern.xds.internal.lb;

import dev.tern.Attributes;
import dev.tern.ClientStreamTracer;
import dev.tern.Metadata;
import dev.tern.Status;

/**
 * A stream tracer that passes every event on to another tracer, if there is one: the base of the
 * tracers this package adds to a pick while keeping the one the child's pick asked for. Thread-safe
 * if the delegate is.
 */
abstract class ForwardingStreamTracer extends ClientStreamTracer {
  private final ClientStreamTracer delegate;

  /**
   * @param delegate the tracer to pass events on to, or null for none
   */
  ForwardingStreamTracer(ClientStreamTracer delegate) {
    this.delegate = delegate;
  }

  @Override
  public void streamClosed(Status status) {
    if (delegate != null) {
      delegate.streamClosed(status);
    }
  }

  @Override
  public void attemptThrottled() {
    if (delegate != null) {
      delegate.attemptThrottled();
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
