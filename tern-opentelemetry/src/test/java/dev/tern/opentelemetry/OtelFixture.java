package dev.tern.opentelemetry;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A Tern server and channel over Netty with {@link GrpcOpenTelemetry} on both, an SDK recording to
 * memory, and a test service ({@code test.Otel}) whose methods are marked as generated ones are.
 */
final class OtelFixture implements AutoCloseable {
  static final String SERVICE = "test.Otel";

  /** Echoes the request; "fail" fails INVALID_ARGUMENT "bad thing". */
  static final MethodDescriptor<String, String> UNARY = method("Unary", true);

  /** Answers "a", "bb", "ccc". */
  static final MethodDescriptor<String, String> STREAM =
      MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
          .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
          .setFullMethodName(SERVICE + "/Stream")
          .setSampledToLocalTracing(true)
          .build();

  /** Echoes; not marked as generated. */
  static final MethodDescriptor<String, String> HAND_MADE = method("HandMade", false);

  /** Not served. */
  static final MethodDescriptor<String, String> MISSING = method("Missing", true);

  /** The trace id the handler saw as current, by request. */
  final Map<String, String> currentTraceIds = new ConcurrentHashMap<>();

  final InMemoryMetricReader metrics = InMemoryMetricReader.create();
  final EndedSpans spans = new EndedSpans();
  final OpenTelemetrySdk sdk;
  final Server server;
  final ManagedChannel channel;

  /** A module recording metrics only, into {@code reader}, for tests that build their own peers. */
  static GrpcOpenTelemetry metricsInto(InMemoryMetricReader reader) {
    OpenTelemetrySdk sdk =
        OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build())
            .build();
    return GrpcOpenTelemetry.newBuilder().sdk(sdk).build();
  }

  /** What {@code reader} holds now, by metric name. */
  static Map<String, MetricData> collect(InMemoryMetricReader reader) {
    return reader.collectAllMetrics().stream()
        .collect(Collectors.toMap(MetricData::getName, m -> m));
  }

  OtelFixture(TernCleanupExtension cleanup) throws Exception {
    this(cleanup, W3CTraceContextPropagator.getInstance(), b -> b);
  }

  OtelFixture(
      TernCleanupExtension cleanup,
      TextMapPropagator propagator,
      java.util.function.UnaryOperator<GrpcOpenTelemetry.Builder> options)
      throws Exception {
    sdk =
        OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(spans).build())
            .setPropagators(ContextPropagators.create(propagator))
            .build();
    GrpcOpenTelemetry otel = options.apply(GrpcOpenTelemetry.newBuilder().sdk(sdk)).build();
    NettyServerBuilder serverBuilder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(service());
    otel.configureServerBuilder(serverBuilder);
    server = cleanup.register(serverBuilder.build().start());
    ManagedChannelBuilder<?> channelBuilder =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext();
    otel.configureChannelBuilder(channelBuilder);
    channel = cleanup.register(channelBuilder.build());
  }

  private static MethodDescriptor<String, String> method(String name, boolean generated) {
    return MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(SERVICE + "/" + name)
        .setSampledToLocalTracing(generated)
        .build();
  }

  private ServerServiceDefinition service() {
    ServerCalls.UnaryMethod<String, String> echo =
        (request, response) -> {
          currentTraceIds.put(request, Span.current().getSpanContext().getTraceId());
          if (request.equals("fail")) {
            response.onError(
                Status.INVALID_ARGUMENT.withDescription("bad thing").asRuntimeException());
            return;
          }
          response.onNext(request);
          response.onCompleted();
        };
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(UNARY, ServerCalls.asyncUnaryCall(echo))
        .addMethod(HAND_MADE, ServerCalls.asyncUnaryCall(echo))
        .addMethod(
            STREAM,
            ServerCalls.asyncServerStreamingCall(
                (String request, dev.tern.stub.StreamObserver<String> response) -> {
                  response.onNext("a");
                  response.onNext("bb");
                  response.onNext("ccc");
                  response.onCompleted();
                }))
        .build();
  }

  String target() {
    return "dns:///127.0.0.1:" + server.getPort();
  }

  /** The metrics collected so far, by name. */
  Map<String, MetricData> collect() {
    return collect(metrics);
  }

  /** Waits until a span named {@code name} has ended (at most 10 s); returns it. */
  SpanData awaitSpan(String name) throws InterruptedException {
    return spans.await(name);
  }

  /** Every span ended so far. */
  List<SpanData> endedSpans() {
    return spans.all();
  }

  /**
   * Collects the spans that end, and lets a test wait for one: a server's span ends after the
   * server has recorded its metrics, which may be after the client heard the call's status.
   */
  static final class EndedSpans implements SpanProcessor {
    private final List<SpanData> ended = new ArrayList<>();

    @Override
    public void onStart(io.opentelemetry.context.Context parent, ReadWriteSpan span) {}

    @Override
    public boolean isStartRequired() {
      return false;
    }

    @Override
    public synchronized void onEnd(ReadableSpan span) {
      ended.add(span.toSpanData());
      notifyAll();
    }

    @Override
    public boolean isEndRequired() {
      return true;
    }

    synchronized List<SpanData> all() {
      return new ArrayList<>(ended);
    }

    synchronized SpanData await(String name) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (true) {
        for (SpanData span : ended) {
          if (span.getName().equals(name)) {
            return span;
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("no span named " + name + " ended; ended: " + ended);
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

  @Override
  public void close() {
    sdk.close();
  }
}
