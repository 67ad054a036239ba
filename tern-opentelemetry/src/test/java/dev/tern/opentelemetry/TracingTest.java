package dev.tern.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.Metadata;
import dev.tern.StatusRuntimeException;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.MetadataUtils;
import dev.tern.testing.TernCleanupExtension;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** gRFC A72's spans from real calls over the Netty transport. */
class TracingTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void aCallIsOneTraceFromTheApplicationsSpanToTheHandler() throws Exception {
    OtelFixture fixture = new OtelFixture(cleanup);
    Span app = fixture.sdk.getTracer("app").spanBuilder("app").startSpan();
    Scope scope = app.makeCurrent();
    try {
      ClientCalls.blockingUnaryCall(
          fixture.channel,
          OtelFixture.UNARY,
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
          "hello");
    } finally {
      scope.close();
      app.end();
    }

    SpanData recv = fixture.awaitSpan("Recv.test.Otel.Unary");
    SpanData attempt = fixture.awaitSpan("Attempt.test.Otel.Unary");
    SpanData sent = fixture.awaitSpan("Sent.test.Otel.Unary");
    String traceId = app.getSpanContext().getTraceId();
    assertThat(List.of(sent, attempt, recv))
        .allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(traceId));
    assertThat(sent.getParentSpanId()).isEqualTo(app.getSpanContext().getSpanId());
    assertThat(attempt.getParentSpanId()).isEqualTo(sent.getSpanId());
    assertThat(recv.getParentSpanId()).isEqualTo(attempt.getSpanId());
    assertThat(recv.getParentSpanContext().isRemote()).isTrue();
    assertThat(sent.getKind()).isEqualTo(SpanKind.INTERNAL);
    assertThat(attempt.getKind()).isEqualTo(SpanKind.CLIENT);
    assertThat(recv.getKind()).isEqualTo(SpanKind.SERVER);
    assertThat(List.of(sent, attempt, recv))
        .allSatisfy(s -> assertThat(s.getStatus().getStatusCode()).isEqualTo(StatusCode.OK));
    assertThat(attempt.getAttributes().get(AttributeKey.longKey("previous-rpc-attempts")))
        .isEqualTo(0L);
    assertThat(attempt.getAttributes().get(AttributeKey.booleanKey("transparent-retry"))).isFalse();
    // the handler ran with the server's span current
    assertThat(fixture.currentTraceIds).containsEntry("hello", traceId);
    // message events where A72 puts them: sent on the attempt, received on the call (client)
    assertThat(events(attempt)).containsExactly("Outbound message seq=0 size=5");
    assertThat(events(sent)).containsExactly("Inbound message seq=0 size=5");
    assertThat(events(recv))
        .containsExactly("Inbound message seq=0 size=5", "Outbound message seq=0 size=5");
    assertThat(sent.getInstrumentationScopeInfo().getName()).isEqualTo("dev.tern");
  }

  private static List<String> events(SpanData span) {
    return span.getEvents().stream().map(TracingTest::describe).toList();
  }

  private static String describe(EventData event) {
    StringBuilder out = new StringBuilder(event.getName());
    out.append(" seq=").append(event.getAttributes().get(AttributeKey.longKey("sequence-number")));
    Long size = event.getAttributes().get(AttributeKey.longKey("message-size"));
    if (size != null) {
      out.append(" size=").append(size);
    }
    Long compressed = event.getAttributes().get(AttributeKey.longKey("message-size-compressed"));
    if (compressed != null) {
      out.append(" compressed=").append(compressed);
    }
    return out.toString();
  }

  @Test
  void aFailedCallsSpansSayItsStatus() throws Exception {
    OtelFixture fixture = new OtelFixture(cleanup);

    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    fixture.channel, OtelFixture.UNARY, CallOptions.DEFAULT, "fail"))
        .isInstanceOf(StatusRuntimeException.class);

    for (String name :
        List.of("Sent.test.Otel.Unary", "Attempt.test.Otel.Unary", "Recv.test.Otel.Unary")) {
      SpanData span = fixture.awaitSpan(name);
      assertThat(span.getStatus().getStatusCode()).as(name).isEqualTo(StatusCode.ERROR);
      assertThat(span.getStatus().getDescription())
          .as(name)
          .isEqualTo("INVALID_ARGUMENT: bad thing");
    }
  }

  @Test
  void compressedAndStreamedMessagesGetTheirEvents() throws Exception {
    OtelFixture fixture = new OtelFixture(cleanup);
    String request = "q".repeat(1000);

    ClientCalls.blockingUnaryCall(
        fixture.channel, OtelFixture.UNARY, CallOptions.DEFAULT.withCompression("gzip"), request);
    Iterator<String> stream =
        ClientCalls.blockingServerStreamingCall(
            fixture.channel, OtelFixture.STREAM, CallOptions.DEFAULT, "go");
    while (stream.hasNext()) {
      stream.next();
    }

    List<String> attempt = events(fixture.awaitSpan("Attempt.test.Otel.Unary"));
    assertThat(attempt).singleElement().asString().startsWith("Outbound message seq=0 size=1000");
    assertThat(attempt.get(0)).matches(".* compressed=\\d{2}");
    List<String> recv = events(fixture.awaitSpan("Recv.test.Otel.Unary"));
    assertThat(recv.get(0)).matches("Inbound compressed message seq=0 compressed=\\d{2}");
    assertThat(recv.get(1)).startsWith("Inbound message seq=0");
    assertThat(events(fixture.awaitSpan("Sent.test.Otel.Stream")))
        .containsExactly(
            "Inbound message seq=0 size=1",
            "Inbound message seq=1 size=2",
            "Inbound message seq=2 size=3");
    assertThat(events(fixture.awaitSpan("Recv.test.Otel.Stream")))
        .containsExactly(
            "Inbound message seq=0 size=2",
            "Outbound message seq=0 size=1",
            "Outbound message seq=1 size=2",
            "Outbound message seq=2 size=3");
  }

  @Test
  void grpcTraceBinCarriesTheTraceToo() throws Exception {
    OtelFixture fixture = new OtelFixture(cleanup, GrpcTraceBinPropagator.getInstance(), b -> b);

    ClientCalls.blockingUnaryCall(fixture.channel, OtelFixture.UNARY, CallOptions.DEFAULT, "hi");

    SpanData attempt = fixture.awaitSpan("Attempt.test.Otel.Unary");
    SpanData recv = fixture.awaitSpan("Recv.test.Otel.Unary");
    assertThat(recv.getTraceId()).isEqualTo(attempt.getTraceId());
    assertThat(recv.getParentSpanId()).isEqualTo(attempt.getSpanId());
  }

  @Test
  void aMalformedTraceHeaderStartsANewTraceAndTheCallSucceeds() throws Exception {
    OtelFixture fixture =
        new OtelFixture(
            cleanup,
            TextMapPropagator.composite(
                W3CTraceContextPropagator.getInstance(), GrpcTraceBinPropagator.getInstance()),
            b -> b.enableTracing(true));
    // A client without OpenTelemetry sends garbage in both headers.
    Metadata garbage = new Metadata();
    garbage.put(Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER), "00-zz-yy-01");
    garbage.put(
        Metadata.Key.of("grpc-trace-bin", Metadata.BINARY_BYTE_MARSHALLER), new byte[] {0, 1, 2});
    dev.tern.ManagedChannel plain =
        cleanup.register(
            dev.tern.ManagedChannelBuilder.forAddress("127.0.0.1", fixture.server.getPort())
                .usePlaintext()
                .intercept(MetadataUtils.newAttachHeadersInterceptor(garbage))
                .build());

    assertThat(ClientCalls.blockingUnaryCall(plain, OtelFixture.UNARY, CallOptions.DEFAULT, "hi"))
        .isEqualTo("hi");

    SpanData recv = fixture.awaitSpan("Recv.test.Otel.Unary");
    assertThat(recv.getParentSpanContext().isValid()).isFalse();
    assertThat(recv.getTraceId()).isEqualTo(fixture.currentTraceIds.get("hi"));
  }

  @Test
  void withTracingOffNoSpanAndNoHeader() throws Exception {
    OtelFixture fixture =
        new OtelFixture(
            cleanup, W3CTraceContextPropagator.getInstance(), b -> b.enableTracing(false));

    ClientCalls.blockingUnaryCall(fixture.channel, OtelFixture.UNARY, CallOptions.DEFAULT, "hi");

    assertThat(fixture.endedSpans()).isEmpty();
    assertThat(fixture.currentTraceIds.get("hi")).isEqualTo("00000000000000000000000000000000");
  }
}
