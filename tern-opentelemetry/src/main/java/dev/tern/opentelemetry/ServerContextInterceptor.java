package dev.tern.opentelemetry;

import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;

/**
 * Makes a server call's span current ({@code Span.current()}) while the interceptors after it and
 * the handler run: in {@code startCall} and in every listener callback. The span travels in the
 * call's Tern context, put there by {@link ServerCallRecorder#filterContext}; calls without one
 * pass straight through.
 *
 * <p>Stateless; thread-safe.
 */
final class ServerContextInterceptor implements ServerInterceptor {
  /** The OpenTelemetry context (with the call's span) of a traced server call. */
  static final dev.tern.Context.Key<Context> OPEN_TELEMETRY_CONTEXT =
      dev.tern.Context.key("opentelemetry-context");

  static final ServerContextInterceptor INSTANCE = new ServerContextInterceptor();

  private ServerContextInterceptor() {}

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    Context context = OPEN_TELEMETRY_CONTEXT.get();
    if (context == null) {
      return next.startCall(call, headers);
    }
    ServerCall.Listener<ReqT> listener;
    Scope scope = context.makeCurrent();
    try {
      listener = next.startCall(call, headers);
    } finally {
      scope.close();
    }
    return new CurrentContextListener<>(listener, context);
  }

  @Override
  public String toString() {
    return "GrpcOpenTelemetry server context interceptor";
  }

  /** Runs each callback with the call's OpenTelemetry context current. */
  private static final class CurrentContextListener<ReqT> extends ServerCall.Listener<ReqT> {
    private final ServerCall.Listener<ReqT> delegate;
    private final Context context;

    CurrentContextListener(ServerCall.Listener<ReqT> delegate, Context context) {
      this.delegate = delegate;
      this.context = context;
    }

    @Override
    public void onMessage(ReqT message) {
      Scope scope = context.makeCurrent();
      try {
        delegate.onMessage(message);
      } finally {
        scope.close();
      }
    }

    @Override
    public void onHalfClose() {
      Scope scope = context.makeCurrent();
      try {
        delegate.onHalfClose();
      } finally {
        scope.close();
      }
    }

    @Override
    public void onCancel() {
      Scope scope = context.makeCurrent();
      try {
        delegate.onCancel();
      } finally {
        scope.close();
      }
    }

    @Override
    public void onComplete() {
      Scope scope = context.makeCurrent();
      try {
        delegate.onComplete();
      } finally {
        scope.close();
      }
    }

    @Override
    public void onReady() {
      Scope scope = context.makeCurrent();
      try {
        delegate.onReady();
      } finally {
        scope.close();
      }
    }
  }
}
