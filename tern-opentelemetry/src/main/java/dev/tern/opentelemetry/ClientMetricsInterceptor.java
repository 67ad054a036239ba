package dev.tern.opentelemetry;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.ForwardingClientCall;
import dev.tern.ForwardingClientCallListener;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.context.Context;

/**
 * One channel's OpenTelemetry interceptor: gives each call a {@link ClientCallRecorder}, installed
 * as the call's stream tracer factory, and tells it when the application hears the call's status.
 * Labels calls with the channel's target and the method name (or "other", gRFC A66's guard against
 * unbounded method names: see {@link GrpcOpenTelemetry.Builder#methodAttributeFilter}).
 *
 * <p>Thread-safe.
 */
final class ClientMetricsInterceptor implements ClientInterceptor {
  private final GrpcOpenTelemetry module;
  private final String target;
  private final MethodAttributes.Cache cache = new MethodAttributes.Cache(1024);

  ClientMetricsInterceptor(GrpcOpenTelemetry module, String target) {
    this.module = module;
    this.target = target;
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
    String fullMethodName = method.getFullMethodName();
    String methodLabel =
        module.recordsMethodName(fullMethodName, method.isSampledToLocalTracing())
            ? fullMethodName
            : GrpcOpenTelemetry.OTHER;
    MethodAttributes attributes =
        cache.get(
            methodLabel,
            () -> Attributes.of(Instruments.METHOD, methodLabel, Instruments.TARGET, target));
    Attributes extra = callOptions.getOption(GrpcOpenTelemetry.CALL_ATTRIBUTES);
    if (extra != null && !extra.isEmpty()) {
      attributes = new MethodAttributes(attributes.base().toBuilder().putAll(extra).build());
    }
    ClientCallRecorder recorder =
        new ClientCallRecorder(module, attributes, fullMethodName, Context.current());
    ClientCall<ReqT, RespT> call;
    try {
      call = next.newCall(method, callOptions.withStreamTracerFactory(recorder));
    } catch (RuntimeException e) {
      recorder.callEnded(Status.fromThrowable(e));
      throw e;
    }
    return new RecordedCall<>(call, recorder);
  }

  @Override
  public String toString() {
    return "GrpcOpenTelemetry client interceptor{target=" + target + "}";
  }

  /** The call, telling its recorder when it ends. */
  private static final class RecordedCall<ReqT, RespT>
      extends ForwardingClientCall.SimpleForwardingClientCall<ReqT, RespT> {
    private final ClientCallRecorder recorder;

    RecordedCall(ClientCall<ReqT, RespT> delegate, ClientCallRecorder recorder) {
      super(delegate);
      this.recorder = recorder;
    }

    @Override
    public void start(Listener<RespT> listener, Metadata headers) {
      try {
        super.start(
            new ForwardingClientCallListener.SimpleForwardingClientCallListener<RespT>(listener) {
              @Override
              public void onClose(Status status, Metadata trailers) {
                recorder.callEnded(status);
                super.onClose(status, trailers);
              }
            },
            headers);
      } catch (RuntimeException e) {
        recorder.callEnded(Status.fromThrowable(e));
        throw e;
      }
    }
  }
}
