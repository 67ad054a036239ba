package dev.tern.xds.orca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.xds.data.orca.v3.OrcaLoadReport;
import com.github.xds.service.orca.v3.OpenRcaServiceTern;
import com.github.xds.service.orca.v3.OrcaLoadReportRequest;
import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.ServerInterceptors;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.FakeClock;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class OrcaServerTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final MethodDescriptor<String, String> WORK =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("test.Work/Do")
          .setRequestMarshaller(TestMarshallers.utf8())
          .setResponseMarshaller(TestMarshallers.utf8())
          .build();

  /** A server whose one method runs {@code handler} on the call's recorder, then fails or not. */
  private ManagedChannel serve(
      OrcaMetricReportingServerInterceptor interceptor,
      Consumer<CallMetricRecorder> handler,
      Status outcome)
      throws Exception {
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Work")
            .addMethod(
                WORK,
                ServerCalls.asyncUnaryCall(
                    (String request, dev.tern.stub.StreamObserver<String> responses) -> {
                      handler.accept(CallMetricRecorder.current());
                      if (outcome.isOk()) {
                        responses.onNext("done");
                        responses.onCompleted();
                      } else {
                        responses.onError(outcome.asRuntimeException());
                      }
                    }))
            .build();
    String name = cleanup.uniqueName();
    cleanup
        .register(
            InProcessServerBuilder.forName(name)
                .addService(ServerInterceptors.intercept(service, interceptor))
                .build())
        .start();
    return cleanup.register(InProcessChannelBuilder.forName(name).build());
  }

  /** The trailers of one call. */
  private static Metadata call(ManagedChannel channel) throws Exception {
    CompletableFuture<Metadata> trailers = new CompletableFuture<>();
    ClientCall<String, String> call = channel.newCall(WORK, CallOptions.DEFAULT);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata received) {
            trailers.complete(received);
          }
        },
        new Metadata());
    call.sendMessage("go");
    call.halfClose();
    call.request(1);
    return trailers.get(5, TimeUnit.SECONDS);
  }

  private static OrcaLoadReport report(Metadata trailers) throws Exception {
    byte[] bytes = trailers.get(OrcaMetricReportingServerInterceptor.TRAILER);
    assertThat(bytes).as("endpoint-load-metrics-bin").isNotNull();
    return OrcaLoadReport.parseFrom(bytes);
  }

  @Test
  void aCallsRecordedMetricsComeBackInItsTrailer() throws Exception {
    ManagedChannel channel =
        serve(
            OrcaMetricReportingServerInterceptor.create(),
            r ->
                r.recordCpuUtilizationMetric(0.5)
                    .recordMemoryUtilizationMetric(0.25)
                    .recordApplicationUtilizationMetric(1.5)
                    .recordQpsMetric(120)
                    .recordEpsMetric(3)
                    .recordUtilizationMetric("disk", 0.75)
                    .recordRequestCostMetric("db", 12)
                    .recordNamedMetric("queue", 7),
            Status.OK);
    assertThat(report(call(channel)))
        .isEqualTo(
            OrcaLoadReport.newBuilder()
                .setCpuUtilization(0.5)
                .setMemUtilization(0.25)
                .setApplicationUtilization(1.5)
                .setRpsFractional(120)
                .setEps(3)
                .putUtilization("disk", 0.75)
                .putRequestCost("db", 12)
                .putNamedMetrics("queue", 7)
                .build());
  }

  @Test
  void aFailedCallReportsToo() throws Exception {
    ManagedChannel channel =
        serve(
            OrcaMetricReportingServerInterceptor.create(),
            r -> r.recordQpsMetric(5),
            Status.UNAVAILABLE.withDescription("busy"));
    assertThat(report(call(channel)).getRpsFractional()).isEqualTo(5);
  }

  @Test
  void nothingRecordedSendsNoTrailer() throws Exception {
    ManagedChannel channel =
        serve(OrcaMetricReportingServerInterceptor.create(), r -> {}, Status.OK);
    assertThat(call(channel).containsKey(OrcaMetricReportingServerInterceptor.TRAILER)).isFalse();
  }

  @Test
  void serverMetricsFillWhatTheCallDidNotRecord() throws Exception {
    MetricRecorder server = MetricRecorder.create();
    server.setCpuUtilizationMetric(0.9);
    server.setQpsMetric(10);
    server.putUtilizationMetric("disk", 0.1);
    ManagedChannel channel =
        serve(
            OrcaMetricReportingServerInterceptor.create(server),
            r -> r.recordQpsMetric(42).recordUtilizationMetric("net", 0.2),
            Status.OK);
    OrcaLoadReport report = report(call(channel));
    assertThat(report.getCpuUtilization()).isEqualTo(0.9);
    assertThat(report.getRpsFractional()).isEqualTo(42);
    assertThat(report.getUtilizationMap()).containsEntry("disk", 0.1).containsEntry("net", 0.2);
  }

  @Test
  void withoutTheInterceptorRecordingGoesNowhere() {
    CallMetricRecorder recorder = CallMetricRecorder.current();
    recorder.recordCpuUtilizationMetric(0.5); // no call: discarded, no failure
    assertThat(CallMetricRecorder.current()).isSameAs(recorder);
  }

  @Test
  void valuesOutOfRangeAreRefusedNamingThem() {
    CallMetricRecorder recorder = new CallMetricRecorder();
    assertThatThrownBy(() -> recorder.recordCpuUtilizationMetric(-0.1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cpuUtilization: must be at least 0, was -0.1");
    assertThatThrownBy(() -> recorder.recordMemoryUtilizationMetric(1.5))
        .hasMessage("memoryUtilization: must be in [0, 1], was 1.5");
    assertThatThrownBy(() -> recorder.recordQpsMetric(Double.NaN))
        .hasMessage("qps: must be finite, was NaN");
    assertThatThrownBy(() -> recorder.recordNamedMetric("", 1))
        .hasMessage("name: must be a non-empty string");
    MetricRecorder server = MetricRecorder.create();
    assertThatThrownBy(() -> server.putUtilizationMetric("disk", 2))
        .hasMessage("utilization: must be in [0, 1], was 2.0");
  }

  @Test
  void theOutOfBandServiceStreamsAtTheIntervalAskedButNotBelowItsMinimum() throws Exception {
    FakeClock clock = new FakeClock();
    MetricRecorder metrics = MetricRecorder.create();
    metrics.setCpuUtilizationMetric(0.3);
    String name = cleanup.uniqueName();
    cleanup
        .register(
            InProcessServerBuilder.forName(name)
                .addService(OrcaService.create(metrics, clock, Duration.ofSeconds(1)))
                .build())
        .start();
    ManagedChannel channel = cleanup.register(InProcessChannelBuilder.forName(name).build());

    LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
    ClientCall<OrcaLoadReportRequest, OrcaLoadReport> call =
        channel.newCall(OpenRcaServiceTern.getStreamCoreMetricsMethod(), CallOptions.DEFAULT);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(OrcaLoadReport message) {
            events.add(message);
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            events.add(status);
          }
        },
        new Metadata());
    call.request(100);
    call.sendMessage(
        OrcaLoadReportRequest.newBuilder()
            .setReportInterval(com.google.protobuf.Duration.newBuilder().setNanos(10_000_000))
            .build());
    call.halfClose();

    OrcaLoadReport first = (OrcaLoadReport) events.poll(5, TimeUnit.SECONDS);
    assertThat(first.getCpuUtilization()).isEqualTo(0.3);
    // The client asked for 10 ms; the minimum is 1 s.
    clock.forwardTime(999, TimeUnit.MILLISECONDS);
    assertThat(events.poll(100, TimeUnit.MILLISECONDS)).isNull();
    metrics.setCpuUtilizationMetric(0.6);
    clock.forwardTime(1, TimeUnit.MILLISECONDS);
    OrcaLoadReport second = (OrcaLoadReport) events.poll(5, TimeUnit.SECONDS);
    assertThat(second.getCpuUtilization()).isEqualTo(0.6);

    call.cancel("done", null);
    assertThat(((Status) events.poll(5, TimeUnit.SECONDS)).getCode())
        .isEqualTo(Status.Code.CANCELLED);
    // The server's timer for the stream is gone once it sees the cancellation.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (clock.numPendingTasks() > 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(clock.numPendingTasks()).isZero();
  }

  @Test
  void theServiceRefusesABadMinimumInterval() {
    assertThatThrownBy(
            () -> OrcaService.create(MetricRecorder.create(), new FakeClock(), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("minReportInterval: must be positive");
  }
}
