package dev.tern.grpcjava.internal.convert;

/**
 * Tells a grpc-java {@code StreamTracer} the stream events Tern's client and server tracers share,
 * converted: the one place for what grpc-java expects and Tern reports otherwise. Tern reports a
 * message's sizes apart ({@code outboundWireSize} and the others, forwarded as they come), so
 * grpc-java's {@code outboundMessageSent} and {@code inboundMessageRead} follow the message's event
 * with sizes of -1 (unknown, which grpc-java's contract allows). Holds only the tracer; called as
 * that tracer would be (see Tern's tracers for which events may overlap).
 */
public final class StreamEvents {
  private final io.grpc.StreamTracer tracer;

  public StreamEvents(io.grpc.StreamTracer tracer) {
    this.tracer = tracer;
  }

  public void outboundMessage(int seqNo) {
    tracer.outboundMessage(seqNo);
    tracer.outboundMessageSent(seqNo, -1, -1);
  }

  public void inboundMessage(int seqNo) {
    tracer.inboundMessage(seqNo);
    tracer.inboundMessageRead(seqNo, -1, -1);
  }

  public void outboundWireSize(long bytes) {
    tracer.outboundWireSize(bytes);
  }

  public void outboundUncompressedSize(long bytes) {
    tracer.outboundUncompressedSize(bytes);
  }

  public void inboundWireSize(long bytes) {
    tracer.inboundWireSize(bytes);
  }

  public void inboundUncompressedSize(long bytes) {
    tracer.inboundUncompressedSize(bytes);
  }

  public void streamClosed(dev.tern.Status status) {
    tracer.streamClosed(Statuses.toGrpc(status));
  }
}
