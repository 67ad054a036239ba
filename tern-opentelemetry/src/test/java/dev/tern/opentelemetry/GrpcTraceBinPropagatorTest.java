package dev.tern.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Metadata;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The grpc-trace-bin format, in Metadata and in a plain text carrier, and what it refuses. */
class GrpcTraceBinPropagatorTest {
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String SPAN = "00f067aa0ba902b7";
  private static final Metadata.Key<byte[]> HEADER =
      Metadata.Key.of("grpc-trace-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private static final TextMapSetter<Map<String, String>> MAP_SETTER = Map::put;
  private static final TextMapGetter<Map<String, String>> MAP_GETTER =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
          return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
          return carrier.get(key);
        }
      };

  private static Context withSpan() {
    return Context.root()
        .with(
            Span.wrap(
                SpanContext.create(TRACE, SPAN, TraceFlags.getSampled(), TraceState.getDefault())));
  }

  @Test
  void theHeaderIsTheTwentyNineBytesOfTheBinaryFormat() {
    Metadata headers = new Metadata();

    GrpcTraceBinPropagator.getInstance().inject(withSpan(), headers, MetadataCarrier.INSTANCE);

    assertThat(HexFormat.of().formatHex(headers.get(HEADER)))
        .isEqualTo("0000" + TRACE + "01" + SPAN + "0201");
  }

  @Test
  void whatItInjectsItExtractsThroughMetadataAndThroughText() {
    Metadata headers = new Metadata();
    GrpcTraceBinPropagator.getInstance().inject(withSpan(), headers, MetadataCarrier.INSTANCE);
    Map<String, String> text = new HashMap<>();
    GrpcTraceBinPropagator.getInstance().inject(withSpan(), text, MAP_SETTER);

    SpanContext fromMetadata =
        Span.fromContext(
                GrpcTraceBinPropagator.getInstance()
                    .extract(Context.root(), headers, MetadataCarrier.INSTANCE))
            .getSpanContext();
    SpanContext fromText =
        Span.fromContext(
                GrpcTraceBinPropagator.getInstance().extract(Context.root(), text, MAP_GETTER))
            .getSpanContext();

    for (SpanContext extracted : new SpanContext[] {fromMetadata, fromText}) {
      assertThat(extracted.getTraceId()).isEqualTo(TRACE);
      assertThat(extracted.getSpanId()).isEqualTo(SPAN);
      assertThat(extracted.isSampled()).isTrue();
      assertThat(extracted.isRemote()).isTrue();
    }
    assertThat(Base64.getDecoder().decode(text.get("grpc-trace-bin")))
        .isEqualTo(headers.get(HEADER));
  }

  @Test
  void malformedValuesAreIgnored() {
    byte[] good = HexFormat.of().parseHex("0000" + TRACE + "01" + SPAN + "0201");
    byte[] badVersion = good.clone();
    badVersion[0] = 1;
    byte[] badField = good.clone();
    badField[18] = 7;
    byte[] zeroTrace = HexFormat.of().parseHex("0000" + "0".repeat(32) + "01" + SPAN + "0201");
    for (byte[] value :
        new byte[][] {new byte[0], new byte[] {0, 0, 1}, badVersion, badField, zeroTrace}) {
      Metadata headers = new Metadata();
      headers.put(HEADER, value);
      Context extracted =
          GrpcTraceBinPropagator.getInstance()
              .extract(Context.root(), headers, MetadataCarrier.INSTANCE);
      assertThat(Span.fromContext(extracted).getSpanContext().isValid())
          .as(HexFormat.of().formatHex(value))
          .isFalse();
    }
    Map<String, String> notBase64 = Map.of("grpc-trace-bin", "*** not base64 ***");
    assertThat(
            Span.fromContext(
                    GrpcTraceBinPropagator.getInstance()
                        .extract(Context.root(), notBase64, MAP_GETTER))
                .getSpanContext()
                .isValid())
        .isFalse();
  }

  @Test
  void settingAHeaderTwiceLeavesOneValue() {
    Metadata headers = new Metadata();

    MetadataCarrier.INSTANCE.set(headers, "traceparent", "first");
    MetadataCarrier.INSTANCE.set(headers, "traceparent", "second");
    GrpcTraceBinPropagator.getInstance().inject(withSpan(), headers, MetadataCarrier.INSTANCE);
    GrpcTraceBinPropagator.getInstance().inject(withSpan(), headers, MetadataCarrier.INSTANCE);

    assertThat(headers.getAll(Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER)))
        .containsExactly("second");
    assertThat(headers.getAll(HEADER)).hasSize(1);
  }
}
