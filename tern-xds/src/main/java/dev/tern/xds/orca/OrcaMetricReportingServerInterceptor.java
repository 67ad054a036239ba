package dev.tern.xds.orca;

import com.github.xds.data.orca.v3.OrcaLoadReport;
import dev.tern.Context;
import dev.tern.Contexts;
import dev.tern.ForwardingServerCall;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.Status;

/**
 * Gives each call a {@link CallMetricRecorder} (through the call's {@link Context}) and sends what
 * it recorded in the trailer {@code endpoint-load-metrics-bin} (gRFC A51), a serialized {@code
 * xds.data.orca.v3.OrcaLoadReport}, whatever the call's status. A call that recorded nothing (and,
 * with a server {@link MetricRecorder}, a server with no values either) sends no trailer.
 *
 * <p>Install it on the server ({@code ServerBuilder.intercept}) or on the services whose calls
 * report. Stateless apart from the server recorder; thread-safe.
 */
public final class OrcaMetricReportingServerInterceptor implements ServerInterceptor {
  /** The trailer's name (A51). */
  public static final String TRAILER_NAME = "endpoint-load-metrics-bin";

  static final Metadata.Key<byte[]> TRAILER =
      Metadata.Key.of(TRAILER_NAME, Metadata.BINARY_BYTE_MARSHALLER);

  private final MetricRecorder serverMetrics;

  private OrcaMetricReportingServerInterceptor(MetricRecorder serverMetrics) {
    this.serverMetrics = serverMetrics;
  }

  /** Reports only what each call records. */
  public static OrcaMetricReportingServerInterceptor create() {
    return new OrcaMetricReportingServerInterceptor(null);
  }

  /** Reports each call's values, and the server's for those a call did not record. */
  public static OrcaMetricReportingServerInterceptor create(MetricRecorder serverMetrics) {
    if (serverMetrics == null) {
      throw new IllegalArgumentException("serverMetrics: must not be null");
    }
    return new OrcaMetricReportingServerInterceptor(serverMetrics);
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    CallMetricRecorder recorder = new CallMetricRecorder();
    ServerCall<ReqT, RespT> reporting =
        new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
          @Override
          public void close(Status status, Metadata trailers) {
            OrcaLoadReport.Builder base =
                serverMetrics == null ? OrcaLoadReport.newBuilder() : serverMetrics.snapshot();
            OrcaLoadReport report = recorder.report(base);
            if (!report.equals(OrcaLoadReport.getDefaultInstance())) {
              trailers.put(TRAILER, report.toByteArray());
            }
            super.close(status, trailers);
          }
        };
    Context context = Context.current().withValue(CallMetricRecorder.KEY, recorder);
    return Contexts.interceptCall(context, reporting, headers, next);
  }
}
