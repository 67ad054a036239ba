package dev.tern.opentelemetry;

import dev.tern.Metadata;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.Base64;
import java.util.Collection;
import java.util.List;

/**
 * Propagates the span context in the binary {@code grpc-trace-bin} header, which gRPC's OpenCensus
 * integrations and grpc-java's OpenTelemetry module speak (gRFC A72), so a Tern service can trace
 * with peers that have not moved to W3C {@code traceparent}. Use it alone or composed with W3C's
 * propagator:
 *
 * <pre>{@code
 * ContextPropagators.create(TextMapPropagator.composite(
 *     W3CTraceContextPropagator.getInstance(), GrpcTraceBinPropagator.getInstance()))
 * }</pre>
 *
 * <p>The value is 29 bytes: version 0, then field 0 and the 16-byte trace id, field 1 and the
 * 8-byte span id, field 2 and the trace flags. A value that does not parse (wrong version or
 * length, an invalid id) is ignored: the call is traced as if it had none.
 *
 * <p>Stateless; thread-safe.
 */
public final class GrpcTraceBinPropagator implements TextMapPropagator {
  /** The header's name. */
  public static final String HEADER = "grpc-trace-bin";

  private static final GrpcTraceBinPropagator INSTANCE = new GrpcTraceBinPropagator();
  private static final int LENGTH = 29;
  private static final byte VERSION = 0;
  private static final byte TRACE_ID_FIELD = 0;
  private static final byte SPAN_ID_FIELD = 1;
  private static final byte OPTIONS_FIELD = 2;
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private GrpcTraceBinPropagator() {}

  /** The propagator. */
  public static GrpcTraceBinPropagator getInstance() {
    return INSTANCE;
  }

  @Override
  public Collection<String> fields() {
    return List.of(HEADER);
  }

  @Override
  public <C> void inject(Context context, C carrier, TextMapSetter<C> setter) {
    if (context == null || setter == null) {
      return;
    }
    SpanContext span = Span.fromContext(context).getSpanContext();
    if (!span.isValid()) {
      return;
    }
    byte[] value = toBytes(span);
    if (setter instanceof MetadataCarrier metadataSetter && carrier instanceof Metadata metadata) {
      metadataSetter.setBinary(metadata, HEADER, value);
    } else {
      setter.set(carrier, HEADER, Base64.getEncoder().encodeToString(value));
    }
  }

  @Override
  public <C> Context extract(Context context, C carrier, TextMapGetter<C> getter) {
    if (context == null) {
      context = Context.root();
    }
    if (getter == null) {
      return context;
    }
    byte[] value;
    if (getter instanceof MetadataCarrier metadataGetter && carrier instanceof Metadata metadata) {
      value = metadataGetter.getBinary(metadata, HEADER);
    } else {
      String text = getter.get(carrier, HEADER);
      if (text == null) {
        return context;
      }
      try {
        value = Base64.getDecoder().decode(text);
      } catch (IllegalArgumentException e) {
        return context;
      }
    }
    SpanContext span = fromBytes(value);
    return span == null ? context : context.with(Span.wrap(span));
  }

  static byte[] toBytes(SpanContext span) {
    byte[] out = new byte[LENGTH];
    out[0] = VERSION;
    out[1] = TRACE_ID_FIELD;
    System.arraycopy(span.getTraceIdBytes(), 0, out, 2, 16);
    out[18] = SPAN_ID_FIELD;
    System.arraycopy(span.getSpanIdBytes(), 0, out, 19, 8);
    out[27] = OPTIONS_FIELD;
    out[28] = span.getTraceFlags().asByte();
    return out;
  }

  /** The remote span context in {@code value}, or null if it is not a valid one. */
  static SpanContext fromBytes(byte[] value) {
    if (value == null
        || value.length != LENGTH
        || value[0] != VERSION
        || value[1] != TRACE_ID_FIELD
        || value[18] != SPAN_ID_FIELD
        || value[27] != OPTIONS_FIELD) {
      return null;
    }
    SpanContext span =
        SpanContext.createFromRemoteParent(
            hex(value, 2, 16),
            hex(value, 19, 8),
            TraceFlags.fromByte(value[28]),
            TraceState.getDefault());
    return span.isValid() ? span : null;
  }

  private static String hex(byte[] bytes, int offset, int length) {
    char[] out = new char[length * 2];
    for (int i = 0; i < length; i++) {
      int b = bytes[offset + i] & 0xff;
      out[2 * i] = HEX[b >>> 4];
      out[2 * i + 1] = HEX[b & 0xf];
    }
    return new String(out);
  }

  @Override
  public String toString() {
    return "GrpcTraceBinPropagator";
  }
}
