package dev.tern.grpcjava.internal.server;

import dev.tern.grpcjava.internal.convert.Metadatas;
import dev.tern.grpcjava.internal.convert.Methods;
import dev.tern.grpcjava.internal.convert.StreamEvents;
import dev.tern.grpcjava.internal.convert.TransportAttributes;
import java.util.function.Supplier;

/**
 * Runs grpc-java {@code io.grpc.ServerStreamTracer.Factory}s ({@code
 * ServerBuilder.addStreamTracerFactory}, as grpc-java's OpenTelemetry module installs its server
 * metrics) on a bridged server: each stream gets grpc-java's tracer, told the same events as on
 * grpc-java.
 *
 * <p>{@code filterContext} is grpc-java's on {@code io.grpc.Context}, which Tern's server does not
 * make: when Tern filters the call's context, grpc-java's tracer filters the {@code
 * io.grpc.Context} the handler will run in (the server's, from {@code io.grpc.Context.ROOT}, then
 * each earlier tracer's), which is kept in the Tern call's context until the bridge makes the
 * handler's context from it ({@link #base}) and adds the call's deadline and cancellation, as
 * grpc-java does. So the order of events is grpc-java's too: {@code filterContext}, then {@code
 * serverCallStarted}. The message events are {@link StreamEvents}'. The method descriptor {@code
 * serverCallStarted} sees has the method's name, type and flags; its marshallers are the bridge's.
 *
 * <p>Thread-safe: the factory holds only grpc-java's factory; each tracer serves one stream and is
 * called as {@link dev.tern.ServerStreamTracer} says.
 */
final class GrpcJavaServerTracers extends dev.tern.ServerStreamTracer.Factory {
  /** The call's io.grpc context as grpc-java's tracers have filtered it so far. */
  private static final dev.tern.Context.Key<io.grpc.Context> FILTERED =
      dev.tern.Context.key("io.grpc.Context filtered by grpc-java server stream tracers");

  private final io.grpc.ServerStreamTracer.Factory factory;
  private final Supplier<io.grpc.Context> callRoot;

  /**
   * @param callRoot the server's context for calls, known once it is built (calls come only after)
   */
  GrpcJavaServerTracers(
      io.grpc.ServerStreamTracer.Factory factory, Supplier<io.grpc.Context> callRoot) {
    this.factory = factory;
    this.callRoot = callRoot;
  }

  @Override
  public dev.tern.ServerStreamTracer newServerStreamTracer(
      String fullMethodName, dev.tern.Metadata headers) {
    io.grpc.ServerStreamTracer tracer =
        factory.newServerStreamTracer(fullMethodName, Metadatas.toGrpc(headers));
    return tracer == null ? null : new Tracer(tracer, callRoot);
  }

  /**
   * The io.grpc context a handler of the Tern call whose context is {@code call} starts from: the
   * server's {@code callRoot}, filtered by the call's grpc-java tracers, if any.
   */
  static io.grpc.Context base(dev.tern.Context call, io.grpc.Context callRoot) {
    io.grpc.Context filtered = FILTERED.get(call);
    return filtered != null ? filtered : callRoot;
  }

  /** Forwards Tern's events for one stream to grpc-java's tracer, converted. */
  private static final class Tracer extends dev.tern.ServerStreamTracer {
    private final io.grpc.ServerStreamTracer tracer;
    private final StreamEvents events;
    private final Supplier<io.grpc.Context> callRoot;

    Tracer(io.grpc.ServerStreamTracer tracer, Supplier<io.grpc.Context> callRoot) {
      this.tracer = tracer;
      this.events = new StreamEvents(tracer);
      this.callRoot = callRoot;
    }

    @Override
    public dev.tern.Context filterContext(dev.tern.Context context) {
      io.grpc.Context filtered = tracer.filterContext(base(context, callRoot.get()));
      return context.withValue(FILTERED, filtered);
    }

    @Override
    public void serverCallStarted(dev.tern.ServerStreamTracer.ServerCallInfo<?, ?> info) {
      tracer.serverCallStarted(callInfo(info));
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

  private static <ReqT, RespT> io.grpc.ServerStreamTracer.ServerCallInfo<ReqT, RespT> callInfo(
      dev.tern.ServerStreamTracer.ServerCallInfo<ReqT, RespT> info) {
    io.grpc.MethodDescriptor<ReqT, RespT> method = Methods.toGrpc(info.getMethodDescriptor());
    io.grpc.Attributes attributes = TransportAttributes.toGrpc(info.getAttributes());
    String authority = info.getAuthority();
    return new io.grpc.ServerStreamTracer.ServerCallInfo<>() {
      @Override
      public io.grpc.MethodDescriptor<ReqT, RespT> getMethodDescriptor() {
        return method;
      }

      @Override
      public io.grpc.Attributes getAttributes() {
        return attributes;
      }

      @Override
      public String getAuthority() {
        return authority;
      }
    };
  }
}
