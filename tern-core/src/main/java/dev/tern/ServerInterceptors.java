package dev.tern;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** Wraps the handlers of a service so that calls pass through {@link ServerInterceptor}s. */
public final class ServerInterceptors {
  private ServerInterceptors() {}

  /** Interceptors run in reverse order: the LAST one sees the call first. */
  public static ServerServiceDefinition intercept(
      ServerServiceDefinition service, ServerInterceptor... interceptors) {
    return intercept(service, Arrays.asList(interceptors));
  }

  /** See {@link #intercept(ServerServiceDefinition, ServerInterceptor...)}. */
  public static ServerServiceDefinition intercept(
      BindableService service, ServerInterceptor... interceptors) {
    return intercept(service.bindService(), Arrays.asList(interceptors));
  }

  /** Interceptors run in the given order: the FIRST one sees the call first. */
  public static ServerServiceDefinition interceptForward(
      ServerServiceDefinition service, ServerInterceptor... interceptors) {
    ServerInterceptor[] reversed = new ServerInterceptor[interceptors.length];
    for (int i = 0; i < interceptors.length; i++) {
      reversed[i] = interceptors[interceptors.length - 1 - i];
    }
    return intercept(service, reversed);
  }

  /** See {@link #intercept(ServerServiceDefinition, ServerInterceptor...)}. */
  public static ServerServiceDefinition intercept(
      ServerServiceDefinition service, List<? extends ServerInterceptor> interceptors) {
    Objects.requireNonNull(service, "service");
    if (interceptors.isEmpty()) {
      return service;
    }
    ServerServiceDefinition.Builder builder =
        ServerServiceDefinition.builder(service.getServiceDescriptor());
    for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
      builder.addMethod(wrap(method, interceptors));
    }
    return builder.build();
  }

  /** Wraps one method's handler; used by the server for builder-level interceptors too. */
  public static <ReqT, RespT> ServerMethodDefinition<ReqT, RespT> wrap(
      ServerMethodDefinition<ReqT, RespT> method, List<? extends ServerInterceptor> interceptors) {
    ServerCallHandler<ReqT, RespT> handler = method.getServerCallHandler();
    for (ServerInterceptor interceptor : interceptors) {
      handler =
          new InterceptedHandler<>(Objects.requireNonNull(interceptor, "interceptor"), handler);
    }
    return method.withServerCallHandler(handler);
  }

  /** Immutable; thread-safe if the interceptor is. */
  private static final class InterceptedHandler<ReqT, RespT>
      implements ServerCallHandler<ReqT, RespT> {
    private final ServerInterceptor interceptor;
    private final ServerCallHandler<ReqT, RespT> next;

    InterceptedHandler(ServerInterceptor interceptor, ServerCallHandler<ReqT, RespT> next) {
      this.interceptor = interceptor;
      this.next = next;
    }

    @Override
    public ServerCall.Listener<ReqT> startCall(ServerCall<ReqT, RespT> call, Metadata headers) {
      return interceptor.interceptCall(call, headers, next);
    }
  }
}
