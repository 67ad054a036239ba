package dev.tern.stub;

import static dev.tern.MethodDescriptor.MethodType.UNARY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.internal.DefaultExecutor;
import dev.tern.internal.SharedExecutors;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server and channel on the default executor (no executor configured): handlers that block where
 * the pool cannot see do not stall the other calls, and many concurrent calls do not grow a thread
 * each.
 */
@Timeout(120)
class DefaultExecutorEndToEndTest {
  private static final MethodDescriptor<String, String> BLOCK = method("Block");
  private static final MethodDescriptor<String, String> ECHO = method("Echo");
  private static final MethodDescriptor<String, String> HOLD = method("Hold");
  private static final int HELD_CALLS = 1_000;

  private final DefaultExecutor defaults = SharedExecutors.callbackExecutor();
  private final CountDownLatch release = new CountDownLatch(1);
  private final int parallelism = defaults.parallelism();
  private final CountDownLatch blockersStarted = new CountDownLatch(parallelism + 1);
  private final Queue<StreamObserver<String>> held = new ConcurrentLinkedQueue<>();
  private final AtomicInteger heldCount = new AtomicInteger();
  private final CountDownLatch allHeld = new CountDownLatch(1);
  private Server server;
  private ManagedChannel channel;

  private static MethodDescriptor<String, String> method(String name) {
    return MethodDescriptor.newBuilder(StringMarshaller.INSTANCE, StringMarshaller.INSTANCE)
        .setType(UNARY)
        .setFullMethodName("test.Defaults/" + name)
        .build();
  }

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Defaults")
            .addMethod(BLOCK, ServerCalls.asyncUnaryCall(this::block))
            .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, out) -> reply(out, request)))
            .addMethod(HOLD, ServerCalls.asyncUnaryCall(this::hold))
            .build();
    server = InProcessServerBuilder.forName(name).addService(service).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    release.countDown();
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(channel.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
  }

  /** Holds its worker on a latch, as Thread.sleep or a contended lock would: no compensation. */
  private void block(String request, StreamObserver<String> responses) {
    blockersStarted.countDown();
    try {
      release.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    reply(responses, request);
  }

  /** Answers nothing until every held call has arrived, so that all are in flight at once. */
  private void hold(String request, StreamObserver<String> responses) {
    held.add(responses);
    if (heldCount.incrementAndGet() == HELD_CALLS) {
      allHeld.countDown();
    }
  }

  private static void reply(StreamObserver<String> responses, String message) {
    responses.onNext(message);
    responses.onCompleted();
  }

  @Test
  void handlersBlockingEveryWorkerDoNotStallAnotherCall() throws Exception {
    List<CompletableFuture<String>> blocked = new ArrayList<>();
    for (int i = 0; i <= parallelism; i++) {
      blocked.add(
          ClientCalls.futureUnaryCall(channel.newCall(BLOCK, CallOptions.DEFAULT), "b" + i));
    }
    // All parallelism + 1 handlers run at once: the last one only after the pool was found stalled.
    assertThat(blockersStarted.await(60, TimeUnit.SECONDS)).isTrue();

    String echoed =
        ClientCalls.futureUnaryCall(channel.newCall(ECHO, CallOptions.DEFAULT), "through")
            .get(60, TimeUnit.SECONDS);
    assertThat(echoed).isEqualTo("through");

    release.countDown();
    for (int i = 0; i <= parallelism; i++) {
      assertThat(blocked.get(i).get(60, TimeUnit.SECONDS)).isEqualTo("b" + i);
    }
  }

  @Test
  void aThousandConcurrentCallsDoNotGrowAThreadEach() throws Exception {
    int before = defaults.poolSize();
    List<CompletableFuture<String>> calls = new ArrayList<>();
    for (int i = 0; i < HELD_CALLS; i++) {
      calls.add(ClientCalls.futureUnaryCall(channel.newCall(HOLD, CallOptions.DEFAULT), "h" + i));
    }
    assertThat(allHeld.await(60, TimeUnit.SECONDS)).isTrue();
    // The pool has at most one worker per core, plus spares it added for managed blocking before
    // this test (none of these calls blocks); a cached pool would have grown toward 1,000.
    assertThat(defaults.poolSize()).isLessThanOrEqualTo(Math.max(before, parallelism));

    StreamObserver<String> responses;
    while ((responses = held.poll()) != null) {
      reply(responses, "done");
    }
    for (CompletableFuture<String> call : calls) {
      assertThat(call.get(60, TimeUnit.SECONDS)).isEqualTo("done");
    }
  }
}
