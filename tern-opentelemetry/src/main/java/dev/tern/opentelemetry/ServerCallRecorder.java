package dev.tern.opentelemetry;

import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.ServerStreamTracer;
import dev.tern.Status;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;

/**
 * One server call's metrics and span: started when its method is found, refused (counted by reason)
 * when the server refuses it at admission, duration and message bytes when it closes, labelled with
 * the method (or "other" for a method the server does not know or that was not generated, gRFC
 * A66's guard against names a client makes up). Its span continues the trace the client propagated,
 * and the call runs with it current ({@link #filterContext}, then {@link
 * ServerContextInterceptor}).
 *
 * <p>Thread-safe as {@link ServerStreamTracer} requires: outbound and inbound events each come from
 * one thread at a time; what they share is volatile or synchronized.
 */
final class ServerCallRecorder extends ServerStreamTracer {
  private final GrpcOpenTelemetry module;
  private final long startNanos = System.nanoTime();
  private final Span span; // null without tracing
  private final Context spanContext; // null without tracing
  private final StreamMessages messages;
  private volatile MethodAttributes attributes; // set when the call starts

  ServerCallRecorder(GrpcOpenTelemetry module, String fullMethodName, Metadata headers) {
    this.module = module;
    if (module.tracer() != null) {
      Context parent =
          module.propagator().extract(Context.root(), headers, MetadataCarrier.INSTANCE);
      span =
          module
              .tracer()
              .spanBuilder(Spans.names(fullMethodName).server())
              .setParent(parent)
              .setSpanKind(SpanKind.SERVER)
              .startSpan();
      spanContext = parent.with(span);
    } else {
      span = null;
      spanContext = null;
    }
    messages = new StreamMessages(span, span);
  }

  @Override
  public dev.tern.Context filterContext(dev.tern.Context context) {
    return spanContext == null
        ? context
        : context.withValue(ServerContextInterceptor.OPEN_TELEMETRY_CONTEXT, spanContext);
  }

  @Override
  public void serverCallStarted(ServerCallInfo<?, ?> callInfo) {
    MethodDescriptor<?, ?> method = callInfo.getMethodDescriptor();
    MethodAttributes started = module.serverAttributes(method);
    attributes = started;
    Instruments instruments = module.instruments();
    if (instruments.serverCallStarted != null) {
      instruments.serverCallStarted.add(1, started.base());
    }
  }

  @Override
  public void callRefused(Refusal refusal) {
    Instruments instruments = module.instruments();
    if (instruments.serverCallRefused != null) {
      instruments.serverCallRefused.add(1, Instruments.REFUSAL_ATTRIBUTES.get(refusal.ordinal()));
    }
  }

  @Override
  public void outboundMessage(int seqNo) {
    messages.outboundMessage(seqNo);
  }

  @Override
  public void outboundUncompressedSize(long bytes) {
    messages.outboundUncompressedSize(bytes);
  }

  @Override
  public void outboundWireSize(long bytes) {
    messages.outboundWireSize(bytes);
  }

  @Override
  public void inboundMessage(int seqNo) {
    messages.inboundMessage(seqNo);
  }

  @Override
  public void inboundWireSize(long bytes) {
    messages.inboundWireSize(bytes);
  }

  @Override
  public void inboundUncompressedSize(long bytes) {
    messages.inboundUncompressedSize(bytes);
  }

  @Override
  public void streamClosed(Status status) {
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    MethodAttributes labels = attributes;
    if (labels == null) {
      labels = module.serverAttributes(null); // never started: an unknown method, a bad request
    }
    io.opentelemetry.api.common.Attributes withStatus = labels.withStatus(status.getCode());
    Instruments instruments = module.instruments();
    if (instruments.serverCallDuration != null) {
      instruments.serverCallDuration.record(seconds, withStatus);
    }
    if (instruments.serverCallSentSize != null) {
      instruments.serverCallSentSize.record(messages.sentBytes(), withStatus);
    }
    if (instruments.serverCallRcvdSize != null) {
      instruments.serverCallRcvdSize.record(messages.receivedBytes(), withStatus);
    }
    if (span != null) {
      messages.flushEvents();
      Spans.end(span, status);
    }
  }

  @Override
  public String toString() {
    return "ServerCallRecorder{" + attributes + "}";
  }
}
