package dev.tern.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.testing.TernCleanupExtension;
import io.grpc.opentelemetry.GrpcTraceBinContextPropagator;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One trace across implementations (gRFC A72): a Tern client calling a grpc-java server, and a
 * grpc-java client calling a Tern server, each process with its own SDK, propagating with W3C
 * {@code traceparent} or with {@code grpc-trace-bin} (Tern's {@link GrpcTraceBinPropagator} on one
 * side, grpc-java's {@code GrpcTraceBinContextPropagator} on the other).
 */
class CrossTraceTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  /** Who calls whom, and how the trace travels. */
  enum Case {
    TERN_TO_GRPC_JAVA_W3C(true, false),
    GRPC_JAVA_TO_TERN_W3C(false, false),
    TERN_TO_GRPC_JAVA_TRACE_BIN(true, true),
    GRPC_JAVA_TO_TERN_TRACE_BIN(false, true);

    final boolean ternClient;
    final boolean traceBin;

    Case(boolean ternClient, boolean traceBin) {
      this.ternClient = ternClient;
      this.traceBin = traceBin;
    }

    TextMapPropagator propagator(boolean tern) {
      if (!traceBin) {
        return W3CTraceContextPropagator.getInstance();
      }
      return tern
          ? GrpcTraceBinPropagator.getInstance()
          : GrpcTraceBinContextPropagator.defaultInstance();
    }
  }

  @ParameterizedTest
  @EnumSource(Case.class)
  void theServerSpanContinuesTheOtherImplementationsAttempt(Case c) throws Exception {
    try (Peer.Sdk clientSdk = new Peer.Sdk(c.propagator(c.ternClient));
        Peer.Sdk serverSdk = new Peer.Sdk(c.propagator(!c.ternClient));
        Peer.Server server =
            c.ternClient
                ? GrpcJavaPeer.server(serverSdk.sdk)
                : TernPeer.server(cleanup, serverSdk.sdk);
        Peer.Client client =
            c.ternClient
                ? TernPeer.client(cleanup, clientSdk.sdk, server.port())
                : GrpcJavaPeer.client(clientSdk.sdk, server.port())) {
      Span app = clientSdk.sdk.getTracer("app").spanBuilder("app").startSpan();
      Scope scope = app.makeCurrent();
      try {
        assertThat(client.unary(Peer.UNARY, Peer.filled(10, 'x'), false)).isEqualTo("OK");
      } finally {
        scope.close();
        app.end();
      }
      server.awaitClosedStreams(1);

      SpanData sent = clientSdk.spans.await("Sent.sbs.Svc.Unary");
      SpanData attempt = clientSdk.spans.await("Attempt.sbs.Svc.Unary");
      SpanData recv = serverSdk.spans.await("Recv.sbs.Svc.Unary");
      String traceId = app.getSpanContext().getTraceId();
      assertThat(List.of(sent, attempt, recv))
          .allSatisfy(span -> assertThat(span.getTraceId()).as(span.getName()).isEqualTo(traceId));
      assertThat(sent.getParentSpanId()).isEqualTo(app.getSpanContext().getSpanId());
      assertThat(attempt.getParentSpanId()).isEqualTo(sent.getSpanId());
      assertThat(recv.getParentSpanId()).isEqualTo(attempt.getSpanId());
      // the server's handler ran with its span current: in the same trace
      assertThat(server.handlerTraceIds()).containsEntry(Peer.UNARY, traceId);
      // the trace travelled in the header asked for, and only in it
      assertThat(server.tracingHeaders())
          .containsEntry(Peer.UNARY, c.traceBin ? "grpc-trace-bin(29 bytes)" : "traceparent");
      // A documented difference: grpc-java 1.79 does not mark a parent read from grpc-trace-bin
      // as remote; W3C's propagator and Tern's GrpcTraceBinPropagator do.
      boolean remote = !c.traceBin || !c.ternClient;
      assertThat(recv.getParentSpanContext().isRemote()).isEqualTo(remote);
    }
  }

  private static final TextMapGetter<Map<String, String>> MAP_GETTER =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
          return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
          return carrier == null ? null : carrier.get(key);
        }
      };

  @Test
  void bothGrpcTraceBinPropagatorsWriteAndReadTheSameBytes() {
    for (TraceFlags flags : List.of(TraceFlags.getSampled(), TraceFlags.getDefault())) {
      SpanContext span =
          SpanContext.create(
              "0af7651916cd43dd8448eb211c80319c",
              "b7ad6b7169203331",
              flags,
              TraceState.getDefault());
      Context context = Context.root().with(Span.wrap(span));
      Map<String, String> tern = new HashMap<>();
      Map<String, String> grpc = new HashMap<>();

      GrpcTraceBinPropagator.getInstance().inject(context, tern, Map::put);
      GrpcTraceBinContextPropagator.defaultInstance().inject(context, grpc, Map::put);

      assertThat(tern.keySet()).containsExactly("grpc-trace-bin");
      assertThat(grpc.keySet()).containsExactly("grpc-trace-bin");
      byte[] ternBytes = Base64.getDecoder().decode(tern.get("grpc-trace-bin"));
      byte[] grpcBytes = Base64.getDecoder().decode(grpc.get("grpc-trace-bin"));
      assertThat(HexFormat.of().formatHex(ternBytes))
          .isEqualTo(HexFormat.of().formatHex(grpcBytes))
          .isEqualTo(
              "00" // version
                  + "00"
                  + "0af7651916cd43dd8448eb211c80319c" // trace id
                  + "01"
                  + "b7ad6b7169203331" // span id
                  + "02"
                  + HexFormat.of().toHexDigits(flags.asByte())); // trace options
      // A documented difference in the text only: grpc-java leaves out base64's padding.
      assertThat(tern.get("grpc-trace-bin").replace("=", "")).isEqualTo(grpc.get("grpc-trace-bin"));

      SpanContext ternReadsGrpc =
          Span.fromContext(
                  GrpcTraceBinPropagator.getInstance().extract(Context.root(), grpc, MAP_GETTER))
              .getSpanContext();
      SpanContext grpcReadsTern =
          Span.fromContext(
                  GrpcTraceBinContextPropagator.defaultInstance()
                      .extract(Context.root(), tern, MAP_GETTER))
              .getSpanContext();
      for (SpanContext read : List.of(ternReadsGrpc, grpcReadsTern)) {
        assertThat(read.getTraceId()).isEqualTo(span.getTraceId());
        assertThat(read.getSpanId()).isEqualTo(span.getSpanId());
        assertThat(read.getTraceFlags()).isEqualTo(flags);
      }
    }
  }
}
