package dev.tern.grpcjava.internal.server;

import dev.tern.grpcjava.internal.convert.Metadatas;
import dev.tern.grpcjava.internal.convert.Methods;
import java.util.List;
import java.util.function.Supplier;

/**
 * Converts grpc-java service definitions to Tern's: each method gets a Tern descriptor (wrapping
 * grpc-java's marshallers) and a Tern handler that starts the grpc-java handler with a {@link
 * TernServerCall}, inside the call's {@code io.grpc.Context} (see {@link CallContexts}), and runs
 * every callback of the grpc-java listener inside it too. The server builder's {@code io.grpc}
 * interceptors wrap each handler, the last added outermost (running first), and a grpc-java {@code
 * BinaryLog} set on the builder wraps them all, as on grpc-java. Stateless and thread-safe.
 */
final class Services {
  private Services() {}

  /**
   * A Tern service serving {@code service}'s methods with its handlers, intercepted, each logged by
   * {@code binaryLog} if it is not null.
   */
  static dev.tern.ServerServiceDefinition toTern(
      io.grpc.ServerServiceDefinition service,
      List<io.grpc.ServerInterceptor> interceptors,
      io.grpc.BinaryLog binaryLog,
      Supplier<io.grpc.Context> callRoot) {
    dev.tern.ServerServiceDefinition.Builder builder =
        dev.tern.ServerServiceDefinition.builder(service.getServiceDescriptor().getName());
    for (io.grpc.ServerMethodDefinition<?, ?> method : service.getMethods()) {
      builder.addMethod(toTern(method, interceptors, binaryLog, callRoot));
    }
    return builder.build();
  }

  /**
   * A Tern method definition serving {@code method} with its handler under the interceptors and,
   * outermost as on grpc-java, the grpc-java binary log (null for none), which sees the messages as
   * bytes.
   */
  static dev.tern.ServerMethodDefinition<?, ?> toTern(
      io.grpc.ServerMethodDefinition<?, ?> method,
      List<io.grpc.ServerInterceptor> interceptors,
      io.grpc.BinaryLog binaryLog,
      Supplier<io.grpc.Context> callRoot) {
    io.grpc.ServerMethodDefinition<?, ?> intercepted = intercept(method, interceptors);
    if (binaryLog != null) {
      intercepted = binaryLog.wrapMethodDefinition(intercepted);
    }
    return adapt(intercepted, callRoot);
  }

  /** {@code method} with its handler wrapped by the interceptors, the last added outermost. */
  private static <ReqT, RespT> io.grpc.ServerMethodDefinition<ReqT, RespT> intercept(
      io.grpc.ServerMethodDefinition<ReqT, RespT> method,
      List<io.grpc.ServerInterceptor> interceptors) {
    io.grpc.ServerCallHandler<ReqT, RespT> handler = method.getServerCallHandler();
    for (io.grpc.ServerInterceptor interceptor : interceptors) {
      io.grpc.ServerCallHandler<ReqT, RespT> next = handler;
      handler = (call, headers) -> interceptor.interceptCall(call, headers, next);
    }
    return method.withServerCallHandler(handler);
  }

  /** A Tern method definition that starts {@code method}'s handler in the call's context. */
  private static <ReqT, RespT> dev.tern.ServerMethodDefinition<ReqT, RespT> adapt(
      io.grpc.ServerMethodDefinition<ReqT, RespT> method, Supplier<io.grpc.Context> callRoot) {
    io.grpc.MethodDescriptor<ReqT, RespT> descriptor = method.getMethodDescriptor();
    io.grpc.ServerCallHandler<ReqT, RespT> handler = method.getServerCallHandler();
    return dev.tern.ServerMethodDefinition.create(
        Methods.toTern(descriptor),
        (call, headers) -> {
          io.grpc.Context.CancellableContext context =
              CallContexts.forCall(dev.tern.Context.current(), callRoot.get());
          io.grpc.ServerCall.Listener<ReqT> listener;
          io.grpc.Context previous = context.attach();
          try {
            listener =
                handler.startCall(
                    new TernServerCall<>(call, descriptor), Metadatas.toGrpc(headers));
          } finally {
            context.detach(previous);
          }
          return new ListenerAdapter<>(listener, context);
        });
  }

  /**
   * Runs the grpc-java listener's callbacks inside the call's context; cancels that context (if
   * Tern has not already) before {@code onCancel} and after {@code onComplete}, as grpc-java does.
   * Tern serialises the callbacks.
   */
  private static final class ListenerAdapter<ReqT> extends dev.tern.ServerCall.Listener<ReqT> {
    private final io.grpc.ServerCall.Listener<ReqT> listener;
    private final io.grpc.Context.CancellableContext context;

    ListenerAdapter(
        io.grpc.ServerCall.Listener<ReqT> listener, io.grpc.Context.CancellableContext context) {
      this.listener = listener;
      this.context = context;
    }

    @Override
    public void onMessage(ReqT message) {
      context.run(() -> listener.onMessage(message));
    }

    @Override
    public void onHalfClose() {
      context.run(() -> listener.onHalfClose());
    }

    @Override
    public void onCancel() {
      context.cancel(null);
      context.run(() -> listener.onCancel());
    }

    @Override
    public void onComplete() {
      io.grpc.Context previous = context.attach();
      try {
        listener.onComplete();
      } finally {
        context.detach(previous);
        context.cancel(null);
      }
    }

    @Override
    public void onReady() {
      context.run(() -> listener.onReady());
    }
  }
}
