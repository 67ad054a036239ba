package dev.tern.benchmarks.startup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.interop.testing.BenchmarkServiceTern;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

/**
 * The start-up part's first-call clients make their one call and print the line bench-compare waits
 * for only once the server has answered it.
 */
@ResourceLock(Resources.SYSTEM_OUT)
class FirstCallClientsTest {
  private final AtomicInteger calls = new AtomicInteger();
  private Server server;
  private PrintStream originalOut;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  @BeforeEach
  void start() throws Exception {
    server =
        ServerBuilder.forPort(0)
            .addService(
                new BenchmarkServiceTern.BenchmarkServiceImplBase() {
                  @Override
                  public void unaryCall(
                      SimpleRequest request, StreamObserver<SimpleResponse> responses) {
                    calls.incrementAndGet();
                    responses.onNext(SimpleResponse.getDefaultInstance());
                    responses.onCompleted();
                  }
                })
            .build()
            .start();
    originalOut = System.out;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void stop() throws InterruptedException {
    System.setOut(originalOut);
    server.shutdownNow();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void ternClientPrintsTheLineAfterItsCallIsAnswered() throws Exception {
    TernFirstCall.main(new String[] {"127.0.0.1:" + server.getPort()});

    assertThat(calls).hasValue(1);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(TernFirstCall.DONE + "\n");
  }

  @Test
  void grpcJavaClientPrintsTheSameLineAfterItsCallIsAnswered() throws Exception {
    GrpcJavaFirstCall.main(new String[] {"127.0.0.1:" + server.getPort()});

    assertThat(calls).hasValue(1);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(TernFirstCall.DONE + "\n");
  }
}
