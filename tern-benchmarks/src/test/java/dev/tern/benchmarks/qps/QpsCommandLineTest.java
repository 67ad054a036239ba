package dev.tern.benchmarks.qps;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.Status;
import dev.tern.interop.testing.BenchmarkServiceTern;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.StreamObserver;
import dev.tern.testtools.ProgramRun;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * What the qps tools answer besides a benchmark: their help, bad flags, and the exit status and
 * one-line reports of a client whose server is not there or fails its calls.
 */
class QpsCommandLineTest {
  @Test
  void badFlagsAreOneLineNamingTheFlagWithStatusTwoAndNothingRuns() throws Exception {
    ProgramRun unknown = ProgramRun.of(QpsClient::run, "--outstanding=5");
    ProgramRun notNumber = ProgramRun.of(QpsClient::run, "--channels=four", "--duration=1");
    ProgramRun zero = ProgramRun.of(QpsClient::run, "--duration=0");
    ProgramRun transport = ProgramRun.of(QpsClient::run, "--transport=kqueue");
    ProgramRun serverFlag = ProgramRun.of(QpsServer::run, "--port=1");
    ProgramRun defaultsAndDirect =
        ProgramRun.of(QpsServer::run, "--defaults", "--directexecutor", "--address=127.0.0.1:0");

    assertThat(List.of(unknown, notNumber, zero, transport, serverFlag, defaultsAndDirect))
        .allSatisfy(
            output -> {
              assertThat(output.status()).isEqualTo(2);
              assertThat(output.out()).isEmpty();
              assertThat(output.err()).endsWith("; see --help\n").hasLineCount(1);
            });
    assertThat(unknown.err()).isEqualTo("qps-client: unknown flag --outstanding; see --help\n");
    assertThat(notNumber.err()).contains("--channels needs a whole number, got 'four'");
    assertThat(zero.err()).contains("--duration must be at least 1, got 0");
    assertThat(transport.err()).contains("--transport must be nio, epoll or io_uring, got kqueue");
    assertThat(serverFlag.err()).isEqualTo("qps-server: unknown flag --port; see --help\n");
    assertThat(defaultsAndDirect.err())
        .contains("--defaults goes with neither --directexecutor nor --nonblocking");
  }

  @Test
  void helpListsEveryFlagWithItsDefaultAndAnExample() throws Exception {
    for (String help : new String[] {"--help", "-h"}) {
      ProgramRun client = ProgramRun.of(QpsClient::run, help);
      ProgramRun server = ProgramRun.of(QpsServer::run, help);
      ProgramRun grpcJava = ProgramRun.of(GrpcJavaBalancedClient::run, help);

      assertThat(List.of(client, server, grpcJava))
          .allSatisfy(
              output -> {
                assertThat(output.status()).isZero();
                assertThat(output.err()).isEmpty();
                assertThat(output.out()).contains("Example:\n");
              });
      assertThat(client.out())
          .contains(
              "--address=HOST:PORT",
              "(default: localhost:8080)",
              "--target=TARGET",
              "--lb_policy=NAME",
              "--channels=N",
              "--outstanding_rpcs=N",
              "--client_payload=BYTES",
              "--server_payload=BYTES",
              "--warmup_duration=S",
              "--duration=S",
              "(default: 60)",
              "--streaming_rpcs",
              "--directexecutor",
              "--transport=nio|epoll|io_uring",
              "--save_histogram=FILE",
              "Exit status: 0 when every call succeeded; 1 when any call failed");
      assertThat(server.out())
          .contains(
              "--address=HOST:PORT",
              "--directexecutor",
              "--defaults",
              "--nonblocking",
              "--transport=nio|epoll|io_uring");
      assertThat(grpcJava.out()).contains("--target=ipv4:HOST:PORT", "--lb_policy=NAME");
    }
  }

  @Test
  void nothingListeningIsOneClearLineAndStatusOne() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }

    long start = System.nanoTime();
    ProgramRun output =
        ProgramRun.of(QpsClient::run, "--address=127.0.0.1:" + port, "--warmup_duration=30");

    assertThat(output.status()).isEqualTo(1);
    assertThat(output.out()).isEmpty();
    assertThat(output.err())
        .startsWith("qps-client: could not connect to 127.0.0.1:" + port + ": UNAVAILABLE")
        .hasLineCount(1);
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start))
        .as("seconds before giving up, with 30 s of warm-up asked for")
        .isLessThan(20);
  }

  @Test
  void failedCallsAreSummedUpInOneLineAndStatusOne() throws Exception {
    AtomicBoolean answered = new AtomicBoolean();
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(
                new BenchmarkServiceTern.BenchmarkServiceImplBase() {
                  @Override
                  public void unaryCall(
                      SimpleRequest request, StreamObserver<SimpleResponse> responses) {
                    if (answered.compareAndSet(false, true)) { // the client's check that it is up
                      responses.onNext(SimpleResponse.getDefaultInstance());
                      responses.onCompleted();
                    } else {
                      responses.onError(
                          Status.RESOURCE_EXHAUSTED
                              .withDescription("the test server answers one call only")
                              .asRuntimeException());
                    }
                  }
                })
            .build()
            .start();
    long start = System.nanoTime();
    ProgramRun output;
    try {
      output =
          ProgramRun.of(
              QpsClient::run,
              "--address=127.0.0.1:" + server.getPort(),
              "--channels=2",
              "--outstanding_rpcs=3",
              "--warmup_duration=30",
              "--duration=30");
    } finally {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start))
        .as("seconds before ending, every loop having failed, with a minute of calls asked for")
        .isLessThan(20);
    assertThat(output.status()).isEqualTo(1);
    QpsToolsTest.assertSummaryShape(output.out().lines().toList());
    assertThat(output.out()).contains("QPS:                            0");
    assertThat(output.err())
        .isEqualTo(
            "qps-client: 6 calls failed; the first: RESOURCE_EXHAUSTED: the test server answers"
                + " one call only\n"
                + "qps-client: no call succeeded in the measured window\n");
  }
}
