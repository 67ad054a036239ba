package dev.tern.grpcjava.internal.convert;

/**
 * Runs a grpc-java {@code io.grpc.ClientStreamTracer.Factory} (from {@code
 * CallOptions.withStreamTracerFactory}, as grpc-java's OpenTelemetry and census modules and the
 * interop tests install them, and as a grpc-java balancer's picker returns one with its subchannel)
 * as a Tern tracer factory: each attempt of the call gets grpc-java's tracer, told the same events
 * as on grpc-java.
 *
 * <p>What differs from grpc-java: the headers a factory adds, replaces or removes in {@code
 * newClientStreamTracer} are copied back into the attempt's headers, as grpc-java sends the same
 * object; {@code outboundMessageSent} and {@code inboundMessageRead} come with the message's number
 * and sizes of -1 (unknown, which grpc-java's contract allows), since Tern reports the sizes
 * through {@code outboundWireSize} and the others, which are forwarded too; {@code
 * createPendingStream} is not called.
 *
 * <p>Thread-safe, as Tern's factories must be: it holds only the factory and the call's options.
 * Each tracer it makes serves one stream and is called as {@link dev.tern.ClientStreamTracer} says.
 */
public final class GrpcJavaTracerFactory extends dev.tern.ClientStreamTracer.Factory {
  private final io.grpc.ClientStreamTracer.Factory factory;
  private final io.grpc.CallOptions callOptions;

  /** Runs {@code factory}'s tracers for a call made with {@code options}. */
  public GrpcJavaTracerFactory(
      io.grpc.ClientStreamTracer.Factory factory, io.grpc.CallOptions options) {
    this.factory = factory;
    this.callOptions = options;
  }

  @Override
  public dev.tern.ClientStreamTracer newClientStreamTracer(
      dev.tern.ClientStreamTracer.StreamInfo info, dev.tern.Metadata headers) {
    io.grpc.ClientStreamTracer.StreamInfo grpcInfo =
        io.grpc.ClientStreamTracer.StreamInfo.newBuilder()
            .setCallOptions(callOptions)
            .setPreviousAttempts(info.getPreviousAttempts())
            .setIsTransparentRetry(info.isTransparentRetry())
            .setIsHedging(info.isHedging())
            .build();
    io.grpc.Metadata grpcHeaders = Metadatas.toGrpc(headers);
    io.grpc.ClientStreamTracer tracer = factory.newClientStreamTracer(grpcInfo, grpcHeaders);
    Metadatas.replaceAll(headers, grpcHeaders);
    return tracer == null ? null : new Tracer(tracer);
  }

  /** Forwards Tern's events for one stream to grpc-java's tracer, converted. */
  private static final class Tracer extends dev.tern.ClientStreamTracer {
    private final io.grpc.ClientStreamTracer tracer;
    private final StreamEvents events;

    Tracer(io.grpc.ClientStreamTracer tracer) {
      this.tracer = tracer;
      this.events = new StreamEvents(tracer);
    }

    @Override
    public void streamCreated(dev.tern.Attributes transportAttrs, dev.tern.Metadata headers) {
      tracer.streamCreated(TransportAttributes.toGrpc(transportAttrs), Metadatas.toGrpc(headers));
    }

    @Override
    public void outboundHeaders() {
      tracer.outboundHeaders();
    }

    @Override
    public void inboundHeaders(dev.tern.Metadata headers) {
      tracer.inboundHeaders(Metadatas.toGrpc(headers));
    }

    @Override
    public void inboundTrailers(dev.tern.Metadata trailers) {
      tracer.inboundTrailers(Metadatas.toGrpc(trailers));
    }

    @Override
    public void outboundMessage(int seqNo) {
      events.outboundMessage(seqNo);
    }

    @Override
    public void inboundMessage(int seqNo) {
      events.inboundMessage(seqNo);
    }

    @Override
    public void outboundWireSize(long bytes) {
      events.outboundWireSize(bytes);
    }

    @Override
    public void outboundUncompressedSize(long bytes) {
      events.outboundUncompressedSize(bytes);
    }

    @Override
    public void inboundWireSize(long bytes) {
      events.inboundWireSize(bytes);
    }

    @Override
    public void inboundUncompressedSize(long bytes) {
      events.inboundUncompressedSize(bytes);
    }

    @Override
    public void streamClosed(dev.tern.Status status) {
      events.streamClosed(status);
    }
  }
}
