/**
 * OpenTelemetry metrics (gRFC A66, and Tern's counts of calls a server refused at admission and of
 * attempts a client's adaptive throttling refused), tracing (gRFC A72) and the non-per-call metrics
 * of tern-core's registry (gRFC A79: subchannels, balancers, the xDS client) for Tern channels and
 * servers.
 *
 * <pre>
 * GrpcOpenTelemetry              the API: built once from an OpenTelemetry SDK, then
 *                                configureChannelBuilder / configureServerBuilder
 * client:
 *   ClientMetricsInterceptor     one per channel: a ClientCallRecorder for each call
 *   ClientCallRecorder           one call: its duration and span; a tracer factory
 *   ClientAttemptTracer          one attempt: bytes, duration, status, its child span, the
 *                                locality and backend service its pick named (AttemptLabels:
 *                                which of them the user enabled)
 * server:
 *   ServerCallRecorder           one call (a ServerStreamTracer): its metrics and span, continuing
 *                                the client's trace
 *   ServerContextInterceptor     makes that span current while the handler runs
 * shared:
 *   StreamMessages               one stream's messages each way: MessageSizes (the byte totals)
 *                                and MessageEvents (A72's span events)
 *   Instruments, MethodAttributes, Spans   the A66 instruments, per-method attributes made once,
 *                                          A72's names
 *   MetadataCarrier, GrpcTraceBinPropagator   propagation in the call's headers (W3C traceparent,
 *                                             or the binary grpc-trace-bin)
 * channel, not per call:
 *   OpenTelemetryMetricSink      the channel's MetricSink: an OpenTelemetry instrument per enabled
 *                                registry instrument, gauges through batch callbacks
 * </pre>
 *
 * <p>Threads: the interceptors run on the thread that starts a call. The tracers get events as
 * tern-core's stream tracer contract says: outbound events one at a time from one thread, inbound
 * events one at a time from another (the transport's); what the two directions share is volatile or
 * synchronized, and a hedged call may create attempts from several threads. Everything here is
 * thread-safe once built; {@code GrpcOpenTelemetry.Builder} is not.
 */
package dev.tern.opentelemetry;
