package dev.tern.opentelemetry;

import dev.tern.CallOptions;
import dev.tern.ClientInterceptor;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MetricInstrument;
import dev.tern.MetricInstrumentRegistry;
import dev.tern.MetricSink;
import dev.tern.ServerBuilder;
import dev.tern.ServerStreamTracer;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * OpenTelemetry metrics (gRFC A66) and tracing (gRFC A72) for Tern channels and servers, in one
 * line each:
 *
 * <pre>{@code
 * GrpcOpenTelemetry otel = GrpcOpenTelemetry.newBuilder().sdk(openTelemetry).build();
 * otel.configureServerBuilder(serverBuilder);
 * otel.configureChannelBuilder(channelBuilder);
 * }</pre>
 *
 * <p>Metrics: the nine of A66 ({@code grpc.client.attempt.started}, {@code
 * grpc.client.attempt.duration}, {@code grpc.client.attempt.sent_total_compressed_message_size},
 * {@code grpc.client.attempt.rcvd_total_compressed_message_size}, {@code
 * grpc.client.call.duration}, {@code grpc.server.call.started}, {@code grpc.server.call.duration},
 * {@code grpc.server.call.sent_total_compressed_message_size}, {@code
 * grpc.server.call.rcvd_total_compressed_message_size}) with its units, histogram boundaries (as
 * advice; an SDK view may change them) and attributes {@code grpc.method}, {@code grpc.status},
 * {@code grpc.target}, and Tern's own {@code tern.server.call.refused} and {@code
 * tern.client.attempt.throttled}; the attempt metrics may also carry A78's and A89's optional
 * labels, as the balancer names them ({@link Builder#addOptionalLabel}). Non-per-call metrics (gRFC
 * A79; A78's and A94's, off by default): those enabled by name with {@link Builder#enableMetrics},
 * through {@link #metricSink()}. Tracing: a span per client call ({@code Sent.pkg.Service.Method}),
 * per attempt ({@code Attempt.…}) and per server call ({@code Recv.…}), with message events, the
 * status, and the span context propagated by the OpenTelemetry instance's propagators (W3C {@code
 * traceparent}, or {@link GrpcTraceBinPropagator} for {@code grpc-trace-bin}). Only the
 * OpenTelemetry API is used: the application brings the SDK; without one (or with {@link
 * OpenTelemetry#noop()}) nothing is recorded, and the global instance is never used.
 *
 * <p>Immutable; thread-safe. One instance may configure any number of channels and servers.
 */
public final class GrpcOpenTelemetry {
  /**
   * Extra attributes for one call's client metrics: {@code
   * callOptions.withOption(GrpcOpenTelemetry.CALL_ATTRIBUTES, Attributes.of(...))}. Keep their
   * values few: each distinct set is a new time series.
   */
  public static final CallOptions.Key<Attributes> CALL_ATTRIBUTES =
      CallOptions.Key.create("dev.tern.opentelemetry.callAttributes");

  /** The instrumentation scope's name, for meters and tracers (and SDK views). */
  public static final String INSTRUMENTATION_SCOPE = "dev.tern";

  /** What {@code grpc.method} or {@code grpc.target} says when the real value is not recorded. */
  static final String OTHER = "other";

  private final Instruments instruments;
  private final OpenTelemetryMetricSink metricSink; // null: no non-per-call metric enabled
  private final Tracer tracer; // null: tracing off
  private final TextMapPropagator propagator;
  private final Predicate<String> targetFilter;
  private final Predicate<String> methodFilter;
  private final MethodAttributes.Cache serverAttributes = new MethodAttributes.Cache(1024);
  private final MethodAttributes otherServerMethod =
      new MethodAttributes(Attributes.of(Instruments.METHOD, OTHER));

  private GrpcOpenTelemetry(Builder builder) {
    OpenTelemetry sdk = builder.sdk;
    String version = version();
    Meter meter =
        sdk.getMeterProvider()
            .meterBuilder(INSTRUMENTATION_SCOPE)
            .setInstrumentationVersion(version)
            .build();
    this.instruments = new Instruments(meter, builder.metrics, builder.optionalLabels);
    Set<String> nonPerCall = new HashSet<>(builder.metrics);
    nonPerCall.removeAll(Instruments.DEFAULT_METRICS);
    this.metricSink =
        nonPerCall.isEmpty()
            ? null
            : new OpenTelemetryMetricSink(meter, nonPerCall, builder.optionalLabels);
    this.tracer =
        builder.tracing
            ? sdk.getTracerProvider()
                .tracerBuilder(INSTRUMENTATION_SCOPE)
                .setInstrumentationVersion(version)
                .build()
            : null;
    this.propagator = sdk.getPropagators().getTextMapPropagator();
    this.targetFilter = builder.targetFilter;
    this.methodFilter = builder.methodFilter;
  }

  /** A builder: no SDK (nothing recorded) until {@link Builder#sdk} is set. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * Records every call of channels built by {@code builder}: adds an interceptor made for the
   * channel's target ({@link ManagedChannelBuilder#interceptWithTarget}). Interceptors added after
   * it run before it, so their time counts in {@code grpc.client.call.duration}. When non-per-call
   * metrics are enabled (gRFC A79: subchannels, balancers, the xDS client), also adds {@link
   * #metricSink()} ({@link ManagedChannelBuilder#addMetricSink}).
   */
  public void configureChannelBuilder(ManagedChannelBuilder<?> builder) {
    Objects.requireNonNull(builder, "builder");
    if (metricSink != null) {
      builder.addMetricSink(metricSink);
    }
    if (!instruments.anyClient() && tracer == null) {
      return;
    }
    builder.interceptWithTarget(this::newClientInterceptor);
  }

  /**
   * The sink {@link #configureChannelBuilder} adds for the non-per-call metrics enabled by name
   * ({@link Builder#enableMetrics}), for channels built some other way; one that records nothing
   * when none is enabled.
   */
  public MetricSink metricSink() {
    return metricSink != null
        ? metricSink
        : new OpenTelemetryMetricSink(
            OpenTelemetry.noop().getMeter(INSTRUMENTATION_SCOPE), Set.of(), Set.of());
  }

  /**
   * The interceptor {@link #configureChannelBuilder} adds, for channels built some other way:
   * {@code target} is what {@code grpc.target} says (the canonical target, {@code
   * dns:///host:port}).
   */
  public ClientInterceptor newClientInterceptor(String target) {
    Objects.requireNonNull(target, "target");
    String label = targetFilter == null || targetFilter.test(target) ? target : OTHER;
    return new ClientMetricsInterceptor(this, label);
  }

  /**
   * Records every call of servers built by {@code builder}: adds a stream tracer factory and an
   * interceptor that makes the call's span current ({@code Span.current()}) in the interceptors
   * added before this one and in the handler. Call it after adding your own interceptors.
   */
  public void configureServerBuilder(ServerBuilder<?> builder) {
    Objects.requireNonNull(builder, "builder");
    if (!instruments.anyServer() && tracer == null) {
      return;
    }
    builder.addStreamTracerFactory(newServerStreamTracerFactory());
    if (tracer != null) {
      builder.intercept(ServerContextInterceptor.INSTANCE);
    }
  }

  /** The server stream tracer factory {@link #configureServerBuilder} adds. */
  public ServerStreamTracer.Factory newServerStreamTracerFactory() {
    return new ServerStreamTracer.Factory() {
      @Override
      public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
        return new ServerCallRecorder(GrpcOpenTelemetry.this, fullMethodName, headers);
      }

      @Override
      public String toString() {
        return "GrpcOpenTelemetry server tracer factory";
      }
    };
  }

  Instruments instruments() {
    return instruments;
  }

  /** The tracer, or null when tracing is off. */
  Tracer tracer() {
    return tracer;
  }

  TextMapPropagator propagator() {
    return propagator;
  }

  /** Whether {@code grpc.method} may say {@code fullMethodName} rather than "other". */
  boolean recordsMethodName(String fullMethodName, boolean generated) {
    return generated || (methodFilter != null && methodFilter.test(fullMethodName));
  }

  /** The attributes of a server call of {@code method} (null: not found). */
  MethodAttributes serverAttributes(MethodDescriptor<?, ?> method) {
    if (method == null) {
      return otherServerMethod;
    }
    String name = method.getFullMethodName();
    if (!recordsMethodName(name, method.isSampledToLocalTracing())) {
      return otherServerMethod;
    }
    return serverAttributes.get(name, () -> Attributes.of(Instruments.METHOD, name));
  }

  private static String version() {
    try (InputStream in = GrpcOpenTelemetry.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "unknown");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String toString() {
    return "GrpcOpenTelemetry{tracing=" + (tracer != null) + "}";
  }

  /** Builds a {@link GrpcOpenTelemetry}. Not thread-safe. */
  public static final class Builder {
    private OpenTelemetry sdk = OpenTelemetry.noop();
    private final Set<String> metrics = defaultMetrics();
    private final Set<String> optionalLabels = new HashSet<>();
    private boolean tracing = true;
    private Predicate<String> targetFilter;
    private Predicate<String> methodFilter;

    private Builder() {}

    /**
     * Where metrics and spans go, and which propagators carry the trace: an {@code
     * OpenTelemetrySdk} (or any {@link OpenTelemetry}). Default: {@link OpenTelemetry#noop()}.
     */
    public Builder sdk(OpenTelemetry sdk) {
      this.sdk = Objects.requireNonNull(sdk, "sdk");
      return this;
    }

    /**
     * Records these metrics: A66's per-call metrics (all on by default) and the non-per-call ones
     * of tern-core's {@code MetricInstrumentRegistry} (gRFC A79; the standard ones, of A78 and A94,
     * are off by default and enabled by name here), for example {@code
     * grpc.subchannel.open_connections}.
     *
     * @throws IllegalArgumentException naming a metric this module does not have
     */
    public Builder enableMetrics(Collection<String> names) {
      metrics.addAll(checked(names));
      return this;
    }

    /**
     * Stops recording these metrics.
     *
     * @throws IllegalArgumentException naming a metric this module does not have
     */
    public Builder disableMetrics(Collection<String> names) {
      metrics.removeAll(checked(names));
      return this;
    }

    /**
     * Records the optional label {@code key} on the metrics that have it: the non-per-call ones
     * (gRFC A79), for example {@code grpc.lb.locality}, {@code grpc.lb.backend_service}, {@code
     * grpc.disconnect_error}, {@code grpc.security_level}; and the per-attempt client metrics
     * ({@code grpc.client.attempt.duration} and the attempt message-size histograms), which carry
     * A78's {@code grpc.lb.locality} and A89's {@code grpc.lb.backend_service} as the balancer's
     * pick names them (xDS: the picked endpoint's locality and the cluster), or "" when no pick
     * named them (a channel without xDS). Optional labels are left out unless added.
     *
     * @throws IllegalArgumentException if no registered metric has that optional label
     */
    public Builder addOptionalLabel(String key) {
      Objects.requireNonNull(key, "key");
      boolean known =
          AttemptLabels.KEYS.contains(key)
              || MetricInstrumentRegistry.getDefaultRegistry().instruments().stream()
                  .anyMatch(i -> i.optionalLabelKeys().contains(key));
      if (!known) {
        throw new IllegalArgumentException("key: no metric has the optional label '" + key + "'");
      }
      optionalLabels.add(key);
      return this;
    }

    /** Records no metrics (tracing still works if enabled). */
    public Builder disableAllMetrics() {
      metrics.clear();
      return this;
    }

    /** Whether to make spans and propagate the trace (default true). */
    public Builder enableTracing(boolean enable) {
      this.tracing = enable;
      return this;
    }

    /**
     * Decides per channel whether {@code grpc.target} names its target or says "other" (for
     * processes that make channels to many addresses). Default: always the target.
     */
    public Builder targetAttributeFilter(Predicate<String> filter) {
      this.targetFilter = Objects.requireNonNull(filter, "filter");
      return this;
    }

    /**
     * Decides whether {@code grpc.method} names a method that is not generated (a hand-made
     * descriptor, or one a server's fallback registry made up for a name the client sent) or says
     * "other". Generated methods are always named. Default: always "other", which keeps a client
     * sending made-up names from creating a time series per name.
     */
    public Builder methodAttributeFilter(Predicate<String> filter) {
      this.methodFilter = Objects.requireNonNull(filter, "filter");
      return this;
    }

    public GrpcOpenTelemetry build() {
      return new GrpcOpenTelemetry(this);
    }

    /**
     * A66's metrics, Tern's refused and throttled calls and the registry's metrics that are on by
     * default.
     */
    private static Set<String> defaultMetrics() {
      Set<String> names = new HashSet<>(Instruments.DEFAULT_METRICS);
      for (MetricInstrument instrument :
          MetricInstrumentRegistry.getDefaultRegistry().instruments()) {
        if (instrument.enabledByDefault()) {
          names.add(instrument.name());
        }
      }
      return names;
    }

    private static Collection<String> checked(Collection<String> names) {
      Objects.requireNonNull(names, "names");
      MetricInstrumentRegistry registry = MetricInstrumentRegistry.getDefaultRegistry();
      for (String name : names) {
        if (!Instruments.DEFAULT_METRICS.contains(name) && registry.find(name) == null) {
          Set<String> known = new TreeSet<>(Instruments.DEFAULT_METRICS);
          registry.instruments().forEach(i -> known.add(i.name()));
          throw new IllegalArgumentException(
              "names: unknown metric '" + name + "'; known: " + known);
        }
      }
      return names;
    }
  }
}
