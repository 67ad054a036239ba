package dev.tern.internal.server;

import static dev.tern.internal.server.ServerTestSupport.UNARY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.stub.BlockingExecutors;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A default server (adaptive limit on) never starves a blocking handler on virtual threads: 200
 * calls at once that each sleep 50 ms are all served, round after round, while the limit learns. On
 * a JDK without virtual threads, a thread per call from a cached pool stands in for them: the
 * handler is as I/O-bound either way.
 */
class AdaptiveLimitBlockingHandlerTest {
  private static final int CALLS = 200;

  private final String name = InProcessServerBuilder.generateName();
  private Server server;
  private ManagedChannel channel;
  private ExecutorService pool;

  @AfterEach
  void tearDown() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    if (pool != null) {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void sleepingHandlerOnVirtualThreads_everyCallIsAdmittedEveryRound() throws IOException {
    Executor executor;
    if (BlockingExecutors.virtualThreadsAvailable()) {
      executor = BlockingExecutors.defaultExecutor();
    } else {
      pool = Executors.newCachedThreadPool();
      executor = pool;
    }
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Echo")
            .addMethod(
                UNARY,
                ServerCalls.asyncUnaryCall(
                    (String request, dev.tern.stub.StreamObserver<String> response) -> {
                      try {
                        Thread.sleep(50); // the handler's blocking I/O
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      response.onNext(request);
                      response.onCompleted();
                    }))
            .build();
    server =
        InProcessServerBuilder.forName(name).executor(executor).addService(service).build().start();
    channel = InProcessChannelBuilder.forName(name).build();

    for (int round = 0; round < 10; round++) {
      List<CompletableFuture<String>> calls = new ArrayList<>();
      for (int i = 0; i < CALLS; i++) {
        calls.add(
            ClientCalls.futureUnaryCall(
                channel.newCall(UNARY, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)),
                "r" + round));
      }
      for (CompletableFuture<String> call : calls) {
        assertThat(call.join()).as("round %d", round).isEqualTo("r" + round);
      }
    }
  }
}
