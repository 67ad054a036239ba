package dev.tern.xds.internal.orca;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.xds.data.orca.v3.OrcaLoadReport;
import com.github.xds.service.orca.v3.OpenRcaServiceTern;
import com.github.xds.service.orca.v3.OrcaLoadReportRequest;
import dev.tern.Attributes;
import dev.tern.Channel;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.ManagedChannel;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.stub.ServerCallStreamObserver;
import dev.tern.stub.StreamObserver;
import dev.tern.testing.FakeClock;
import dev.tern.testing.TernCleanupExtension;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The OOB stream against a real (in-process) OpenRcaService whose streams the test drives. */
class OrcaOobStreamTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final FakeClock clock = new FakeClock();
  private final SynchronizationContext syncContext =
      new SynchronizationContext(
          (thread, e) -> {
            throw new AssertionError("task failed in the synchronization context", e);
          });
  private final LinkedBlockingQueue<OrcaLoadReport> reports = new LinkedBlockingQueue<>();

  /** What the server saw: each stream's request and its response observer. */
  private final LinkedBlockingQueue<Opened> opened = new LinkedBlockingQueue<>();

  private record Opened(
      OrcaLoadReportRequest request, ServerCallStreamObserver<OrcaLoadReport> responses) {}

  private Channel serve() throws Exception {
    String name = cleanup.uniqueName();
    InProcessServerBuilder server = InProcessServerBuilder.forName(name);
    server.addService(
        OpenRcaServiceTern.bindService(
            new OpenRcaServiceTern.AsyncService() {
              @Override
              public void streamCoreMetrics(
                  OrcaLoadReportRequest request, StreamObserver<OrcaLoadReport> responses) {
                opened.add(
                    new Opened(request, (ServerCallStreamObserver<OrcaLoadReport>) responses));
              }
            }));
    cleanup.register(server.build()).start();
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    return cleanup.register(channel);
  }

  private OrcaOobStream stream(Channel channel, long intervalNanos) {
    LoadBalancer.Subchannel subchannel =
        new LoadBalancer.Subchannel() {
          @Override
          public void start(LoadBalancer.SubchannelStateListener listener) {}

          @Override
          public void shutdown() {}

          @Override
          public void requestConnection() {}

          @Override
          public List<EquivalentAddressGroup> getAllAddresses() {
            return List.of(new EquivalentAddressGroup(new InetSocketAddress("127.0.0.1", 1)));
          }

          @Override
          public void updateAddresses(List<EquivalentAddressGroup> addresses) {}

          @Override
          public Attributes getAttributes() {
            return Attributes.EMPTY;
          }

          @Override
          public Channel asChannel() {
            return channel;
          }
        };
    return new OrcaOobStream(subchannel, syncContext, clock, intervalNanos, reports::add);
  }

  private Opened nextStream() throws InterruptedException {
    Opened stream = opened.poll(5, TimeUnit.SECONDS);
    assertThat(stream).as("a StreamCoreMetrics stream").isNotNull();
    return stream;
  }

  private static OrcaLoadReport cpu(double value) {
    return OrcaLoadReport.newBuilder().setCpuUtilization(value).build();
  }

  @Test
  void oneStreamWhileReadyAskingForTheInterval() throws Exception {
    OrcaOobStream oob = stream(serve(), TimeUnit.MILLISECONDS.toNanos(1500));
    syncContext.execute(() -> oob.setReady(true));
    Opened stream = nextStream();
    assertThat(stream.request().getReportInterval().getSeconds()).isEqualTo(1);
    assertThat(stream.request().getReportInterval().getNanos()).isEqualTo(500_000_000);

    stream.responses().onNext(cpu(0.1));
    stream.responses().onNext(cpu(0.2));
    assertThat(reports.poll(5, TimeUnit.SECONDS)).isEqualTo(cpu(0.1));
    assertThat(reports.poll(5, TimeUnit.SECONDS)).isEqualTo(cpu(0.2));

    syncContext.execute(() -> oob.setReady(true)); // already streaming: nothing new
    syncContext.execute(() -> oob.setReady(false));
    assertCancelled(stream);
    assertThat(opened).isEmpty();
  }

  @Test
  void aNewIntervalReplacesTheStream() throws Exception {
    OrcaOobStream oob = stream(serve(), TimeUnit.SECONDS.toNanos(10));
    syncContext.execute(() -> oob.setReady(true));
    Opened first = nextStream();
    syncContext.execute(() -> oob.setInterval(TimeUnit.SECONDS.toNanos(2)));
    assertCancelled(first);
    assertThat(nextStream().request().getReportInterval().getSeconds()).isEqualTo(2);
    syncContext.execute(oob::shutdown);
  }

  @Test
  void aStreamThatEndsAfterAReportIsReopenedAtOnce() throws Exception {
    OrcaOobStream oob = stream(serve(), TimeUnit.SECONDS.toNanos(1));
    syncContext.execute(() -> oob.setReady(true));
    Opened first = nextStream();
    first.responses().onNext(cpu(0.5));
    assertThat(reports.poll(5, TimeUnit.SECONDS)).isEqualTo(cpu(0.5));
    first.responses().onError(Status.UNAVAILABLE.asRuntimeException());
    nextStream();
    assertThat(clock.numPendingTasks()).isZero();
    syncContext.execute(oob::shutdown);
  }

  @Test
  void aStreamThatFailsWithoutAReportIsRetriedAfterBackoff() throws Exception {
    OrcaOobStream oob = stream(serve(), TimeUnit.SECONDS.toNanos(1));
    syncContext.execute(() -> oob.setReady(true));
    nextStream().responses().onError(Status.UNAVAILABLE.asRuntimeException());
    awaitPendingTask();
    assertThat(opened).isEmpty();
    clock.forwardTime(1200, TimeUnit.MILLISECONDS); // the first back-off is 1 s ±20%
    Opened second = nextStream();
    second.responses().onError(Status.UNAVAILABLE.asRuntimeException());
    awaitPendingTask();
    clock.forwardTime(1200, TimeUnit.MILLISECONDS); // the second is 1.6 s ±20%: at least 1.28 s
    assertThat(opened.poll(100, TimeUnit.MILLISECONDS)).isNull();
    clock.forwardTime(800, TimeUnit.MILLISECONDS);
    nextStream();
    syncContext.execute(oob::shutdown);
  }

  @Test
  void aBackendWithoutOrcaIsNotAskedAgainUntilItReconnects() throws Exception {
    OrcaOobStream oob = stream(serve(), TimeUnit.SECONDS.toNanos(1));
    syncContext.execute(() -> oob.setReady(true));
    nextStream().responses().onError(Status.UNIMPLEMENTED.asRuntimeException());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    boolean[] streaming = {true};
    while (streaming[0] && System.nanoTime() < deadline) {
      syncContext.execute(() -> streaming[0] = oob.isStreaming());
    }
    assertThat(streaming[0]).as("the UNIMPLEMENTED stream has ended").isFalse();
    assertThat(clock.numPendingTasks()).as("no retry is scheduled").isZero();
    clock.forwardTime(10, TimeUnit.MINUTES);
    assertThat(opened).isEmpty();

    syncContext.execute(() -> oob.setReady(false));
    syncContext.execute(() -> oob.setReady(true));
    nextStream(); // asked again after reconnecting
    syncContext.execute(oob::shutdown);
  }

  private void assertCancelled(Opened stream) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!stream.responses().isCancelled() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(stream.responses().isCancelled()).as("the server saw the stream cancelled").isTrue();
  }

  private void awaitPendingTask() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (clock.numPendingTasks() == 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(clock.numPendingTasks()).as("a retry is scheduled").isOne();
  }
}
