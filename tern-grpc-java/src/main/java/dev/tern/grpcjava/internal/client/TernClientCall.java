package dev.tern.grpcjava.internal.client;

import dev.tern.grpcjava.internal.convert.Deadlines;
import dev.tern.grpcjava.internal.convert.GrpcJavaTracerFactory;
import dev.tern.grpcjava.internal.convert.Metadatas;
import dev.tern.grpcjava.internal.convert.Statuses;
import dev.tern.grpcjava.internal.convert.TransportAttributes;
import java.util.concurrent.TimeoutException;

/**
 * One {@code io.grpc} call run as a Tern call. It is made in {@code newCall}, inside the caller's
 * {@code io.grpc.Context}: its deadline is the earlier of the call options' and the context's, and
 * cancelling the context cancels the call (a context that expires is left to the call's own
 * deadline, so the call ends DEADLINE_EXCEEDED as on grpc-java). The listener's callbacks run with
 * that context attached. grpc-java's stream tracer factories in the call options trace each of its
 * attempts ({@link GrpcJavaTracerFactory}).
 *
 * <p>Like any {@code ClientCall}, not thread-safe: the application calls it from one thread at a
 * time; Tern serialises the listener's callbacks.
 */
final class TernClientCall<ReqT, RespT> extends io.grpc.ClientCall<ReqT, RespT> {
  private final io.grpc.Context context;
  private final dev.tern.ClientCall<ReqT, RespT> call;

  /**
   * @param ternMethod {@code method} as Tern's descriptor
   */
  TernClientCall(
      dev.tern.Channel channel,
      io.grpc.MethodDescriptor<ReqT, RespT> method,
      dev.tern.MethodDescriptor<ReqT, RespT> ternMethod,
      io.grpc.CallOptions options) {
    this.context = io.grpc.Context.current();
    this.call = channel.newCall(ternMethod, ternOptions(method, options, context));
  }

  private static dev.tern.CallOptions ternOptions(
      io.grpc.MethodDescriptor<?, ?> method, io.grpc.CallOptions options, io.grpc.Context context) {
    dev.tern.CallOptions.Builder builder = dev.tern.CallOptions.newBuilder();
    io.grpc.Deadline deadline = Deadlines.earlier(options.getDeadline(), context.getDeadline());
    builder.setDeadline(Deadlines.toTern(deadline));
    builder.setAuthority(options.getAuthority());
    builder.setCompression(options.getCompressor());
    builder.setExecutor(options.getExecutor());
    builder.setWaitForReady(options.isWaitForReady());
    builder.setMaxInboundMessageSize(options.getMaxInboundMessageSize());
    builder.setMaxOutboundMessageSize(options.getMaxOutboundMessageSize());
    if (options.getCredentials() != null) {
      builder.setCallCredentials(
          new CallCredentialsAdapter(options.getCredentials(), method, options));
    }
    for (io.grpc.ClientStreamTracer.Factory factory : options.getStreamTracerFactories()) {
      builder.addStreamTracerFactory(new GrpcJavaTracerFactory(factory, options));
    }
    return builder.build();
  }

  @Override
  public void start(Listener<RespT> listener, io.grpc.Metadata headers) {
    ListenerAdapter adapter = new ListenerAdapter(listener);
    call.start(adapter, Metadatas.toTern(headers));
    context.addListener(adapter, Runnable::run);
  }

  @Override
  public void request(int numMessages) {
    call.request(numMessages);
  }

  @Override
  public void cancel(String message, Throwable cause) {
    call.cancel(message, cause);
  }

  @Override
  public void halfClose() {
    call.halfClose();
  }

  @Override
  public void sendMessage(ReqT message) {
    call.sendMessage(message);
  }

  @Override
  public boolean isReady() {
    return call.isReady();
  }

  @Override
  public void setMessageCompression(boolean enabled) {
    call.setMessageCompression(enabled);
  }

  @Override
  public io.grpc.Attributes getAttributes() {
    return TransportAttributes.toGrpc(call.getAttributes());
  }

  @Override
  public String toString() {
    return "TernClientCall{" + call + "}";
  }

  /**
   * Forwards Tern's callbacks to the {@code io.grpc} listener, converted, with the call's context
   * attached; and cancels the call when that context is cancelled.
   */
  private final class ListenerAdapter extends dev.tern.ClientCall.Listener<RespT>
      implements io.grpc.Context.CancellationListener {
    private final Listener<RespT> listener;

    ListenerAdapter(Listener<RespT> listener) {
      this.listener = listener;
    }

    @Override
    public void onHeaders(dev.tern.Metadata headers) {
      context.run(() -> listener.onHeaders(Metadatas.toGrpc(headers)));
    }

    @Override
    public void onMessage(RespT message) {
      context.run(() -> listener.onMessage(message));
    }

    @Override
    public void onClose(dev.tern.Status status, dev.tern.Metadata trailers) {
      context.removeListener(this);
      context.run(() -> listener.onClose(Statuses.toGrpc(status), Metadatas.toGrpc(trailers)));
    }

    @Override
    public void onReady() {
      context.run(() -> listener.onReady());
    }

    @Override
    public void cancelled(io.grpc.Context cancelled) {
      Throwable cause = cancelled.cancellationCause();
      if (cause instanceof TimeoutException) {
        return; // the context's deadline: the call has it too, and ends DEADLINE_EXCEEDED
      }
      call.cancel("Context cancelled", cause); // grpc-java's words
    }
  }
}
