package dev.tern.opentelemetry;

import dev.tern.ClientStreamTracer;
import dev.tern.Metadata;
import dev.tern.Status;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One client call's metrics and spans: the call's duration and span, and a {@link
 * ClientAttemptTracer} (with its own span, a child of the call's) for each attempt the channel
 * makes, whose span context is propagated in that attempt's headers.
 *
 * <p>Thread-safe: attempts may be created from several threads (hedging); the call ends once.
 */
final class ClientCallRecorder extends ClientStreamTracer.Factory {
  private final GrpcOpenTelemetry module;
  private final MethodAttributes attributes;
  private final String fullMethodName;
  private final Spans.Names names; // null without tracing
  private final long startNanos = System.nanoTime();
  private final Span callSpan; // null without tracing
  private final Context callContext; // null without tracing
  private final AtomicInteger attempts = new AtomicInteger();
  private final AtomicBoolean ended = new AtomicBoolean();

  ClientCallRecorder(
      GrpcOpenTelemetry module,
      MethodAttributes attributes,
      String fullMethodName,
      Context parent) {
    this.module = module;
    this.attributes = attributes;
    this.fullMethodName = fullMethodName;
    if (module.tracer() != null) {
      names = Spans.names(fullMethodName);
      callSpan =
          module
              .tracer()
              .spanBuilder(names.call())
              .setParent(parent)
              .setSpanKind(SpanKind.INTERNAL)
              .startSpan();
      callContext = parent.with(callSpan);
    } else {
      names = null;
      callSpan = null;
      callContext = null;
    }
  }

  @Override
  public ClientStreamTracer newClientStreamTracer(
      ClientStreamTracer.StreamInfo info, Metadata headers) {
    attempts.incrementAndGet();
    Instruments instruments = module.instruments();
    if (instruments.clientAttemptStarted != null) {
      instruments.clientAttemptStarted.add(1, attributes.base());
    }
    Span attemptSpan = null;
    if (callSpan != null) {
      attemptSpan =
          module
              .tracer()
              .spanBuilder(names.attempt())
              .setParent(callContext)
              .setSpanKind(SpanKind.CLIENT)
              .setAttribute(Spans.PREVIOUS_RPC_ATTEMPTS, (long) info.getPreviousAttempts())
              .setAttribute(Spans.TRANSPARENT_RETRY, info.isTransparentRetry())
              .startSpan();
      module.propagator().inject(callContext.with(attemptSpan), headers, MetadataCarrier.INSTANCE);
    }
    return new ClientAttemptTracer(instruments, attributes, attemptSpan, callSpan);
  }

  /** The call ended with {@code status}, as its application hears it; later calls are ignored. */
  void callEnded(Status status) {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    Instruments instruments = module.instruments();
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    if (attempts.get() == 0) {
      // The call failed before any attempt was made (no address, a bad service config, a
      // deadline): A66 still counts one attempt, which carried nothing.
      if (instruments.clientAttemptStarted != null) {
        instruments.clientAttemptStarted.add(1, attributes.base());
      }
      ClientAttemptTracer.record(
          instruments,
          instruments.attemptLabels.add(attributes.withStatus(status.getCode()), null, null),
          seconds,
          0,
          0);
    }
    if (instruments.clientCallDuration != null) {
      instruments.clientCallDuration.record(seconds, attributes.withStatus(status.getCode()));
    }
    if (callSpan != null) {
      Spans.end(callSpan, status);
    }
  }

  @Override
  public String toString() {
    return "ClientCallRecorder{" + fullMethodName + "}";
  }
}
