package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.internal.SharedExecutors;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.stub.StreamObserver;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Netty server on the default executor (none configured), over loopback: handlers that block
 * every worker of the pool, where the pool cannot see it, do not stall the server's other calls.
 */
class DefaultExecutorBlockingTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final MethodDescriptor<String, String> BLOCK = method("Block");
  private static final MethodDescriptor<String, String> ECHO = method("Echo");

  private final int parallelism = SharedExecutors.callbackExecutor().parallelism();
  private final CountDownLatch started = new CountDownLatch(parallelism + 1);
  private final CountDownLatch release = new CountDownLatch(1);

  private static MethodDescriptor<String, String> method(String name) {
    return MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName("test.Blocking/" + name)
        .build();
  }

  @AfterEach
  void releaseHandlers() {
    release.countDown();
  }

  @Test
  void handlersBlockingEveryWorkerDoNotStallAnotherCall() throws Exception {
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Blocking")
            .addMethod(BLOCK, ServerCalls.asyncUnaryCall(this::block))
            .addMethod(ECHO, ServerCalls.asyncUnaryCall(DefaultExecutorBlockingTest::echo))
            .build();
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(service)
                .build()
                .start());
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());

    List<CompletableFuture<String>> blocked = new ArrayList<>();
    for (int i = 0; i <= parallelism; i++) {
      blocked.add(
          ClientCalls.futureUnaryCall(channel.newCall(BLOCK, CallOptions.DEFAULT), "b" + i));
    }
    assertThat(started.await(60, TimeUnit.SECONDS)).isTrue();

    CompletableFuture<String> echoed =
        ClientCalls.futureUnaryCall(channel.newCall(ECHO, CallOptions.DEFAULT), "through");
    assertThat(echoed.get(60, TimeUnit.SECONDS)).isEqualTo("through");

    release.countDown();
    for (int i = 0; i <= parallelism; i++) {
      assertThat(blocked.get(i).get(60, TimeUnit.SECONDS)).isEqualTo("b" + i);
    }
  }

  /** Holds its worker until released, as a sleep or a contended lock would. */
  private void block(String request, StreamObserver<String> responses) {
    started.countDown();
    try {
      release.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    echo(request, responses);
  }

  private static void echo(String request, StreamObserver<String> responses) {
    responses.onNext(request);
    responses.onCompleted();
  }
}
