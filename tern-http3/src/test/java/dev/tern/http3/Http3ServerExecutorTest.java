package dev.tern.http3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.TlsChannelCredentials;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.TestPems;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * How an HTTP/3 server's calls reach its executor: after the event loop's reads (the loop's
 * read-batch hand-off, as on HTTP/2), and, when the executor refuses them, as a failed call that
 * leaves the connection serving the next.
 */
class Http3ServerExecutorTest {
  private static final String READ_BATCH_HAND_OFF = "dev.tern.netty.internal.io.ReadBatchHandOff";

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path dir;

  private TestPems pems;

  private Server server(Executor executor) throws Exception {
    pems = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    Path cert = Files.writeString(dir.resolve("cert.pem"), pems.certificatePem);
    Path key = Files.writeString(dir.resolve("key.pem"), pems.keyPem);
    return cleanup.register(
        NettyServerBuilder.forPort(0)
            .useTransportSecurity(cert.toFile(), key.toFile())
            .enableHttp3()
            .executor(executor)
            .addService(EchoService.definition())
            .build()
            .start());
  }

  private ManagedChannel channel(Server server) throws Exception {
    TlsChannelCredentials trust =
        TlsChannelCredentials.newBuilder()
            .trustManager(
                new ByteArrayInputStream(pems.certificatePem.getBytes(StandardCharsets.US_ASCII)))
            .build();
    return cleanup.register(
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .tlsCredentials(trust)
            .enableHttp3()
            .build());
  }

  /**
   * A work-stealing pool (as the server's default executor is) that notes, for each task handed to
   * it from outside the pool (the event loop), whether the loop's read-batch hand-off handed it
   * over after the loop's reads.
   */
  private static final class NotingPool extends ForkJoinPool {
    final List<Boolean> afterTheReads = new CopyOnWriteArrayList<>();

    NotingPool() {
      super(2);
    }

    @Override
    public void execute(Runnable task) {
      if (!(Thread.currentThread() instanceof ForkJoinWorkerThread)) {
        afterTheReads.add(
            StackWalker.getInstance()
                .walk(
                    frames ->
                        frames.anyMatch(
                            frame ->
                                frame.getClassName().equals(READ_BATCH_HAND_OFF)
                                    && frame.getMethodName().equals("flush"))));
      }
      super.execute(task);
    }
  }

  @Test
  void callsReachTheExecutorAfterTheLoopsReads() throws Exception {
    NotingPool pool = new NotingPool();
    try {
      Server server = server(pool);
      ManagedChannel channel = channel(server);

      for (String message : List.of("one", "two", "three")) {
        assertThat(
                ClientCalls.blockingUnaryCall(
                    channel, EchoService.UNARY, CallOptions.DEFAULT, message))
            .isEqualTo(message);
      }

      // Every hand-over from the loop came from its read-batch hand-off's flush, after the reads;
      // before, each call was handed over from the middle of the loop's reads.
      assertThat(pool.afterTheReads).isNotEmpty().containsOnly(true);
    } finally {
      pool.shutdown();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void anExecutorRefusingACall_failsItUnavailableAndTheConnectionServesTheNext() throws Exception {
    ForkJoinPool pool = new ForkJoinPool(1);
    try {
      RefusingOnce executor = new RefusingOnce(pool);
      Server server = server(executor);
      ManagedChannel channel = channel(server);

      try (LogCapture logs =
          new LogCapture("dev.tern.internal.server.ExecutorRejectionLog", Level.WARNING)) {
        assertThatThrownBy(
                () ->
                    ClientCalls.blockingUnaryCall(
                        channel,
                        EchoService.UNARY,
                        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                        "refused"))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> {
                  assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                  assertThat(e.getStatus().getDescription())
                      .isEqualTo("Server executor rejected the call");
                });
        assertThat(logs.awaitRecord(r -> true, Duration.ofSeconds(10)).getLevel())
            .isEqualTo(Level.WARNING);
      }

      assertThat(
              ClientCalls.blockingUnaryCall(
                  channel, EchoService.UNARY, CallOptions.DEFAULT, "next"))
          .isEqualTo("next");
      assertThat(executor.refused).isTrue();
    } finally {
      pool.shutdown();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** Refuses the first task it is given, then runs the rest on {@code delegate}. */
  private static final class RefusingOnce implements Executor {
    private final Executor delegate;
    volatile boolean refused;

    RefusingOnce(Executor delegate) {
      this.delegate = delegate;
    }

    @Override
    public synchronized void execute(Runnable task) {
      if (!refused) {
        refused = true;
        throw new RejectedExecutionException("refused by the test");
      }
      delegate.execute(task);
    }
  }
}
