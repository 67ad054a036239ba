package dev.tern.benchmarks.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What OneWayStreamBenchmark relies on, for both systems over Netty: a one-way stream delivers
 * every message it sends and ends cleanly; a receiver that stops taking messages stops the sender
 * through flow control, with a bounded amount in flight. {@link LargeUnaryTest} checks the 16 MiB
 * calls of LargeUnaryBenchmark.
 */
@Tag("external-check") // long, or a rerun: -Pexternal-checks and CI (README.md#development)
class OneWayStreamTest {
  private static final int MIB = 1024 * 1024;

  @ParameterizedTest(name = "{0}, {1}, {2}-byte messages")
  @CsvSource({
    "tern, up, 0",
    "tern, up, 1024",
    "tern, down, 0",
    "tern, down, 1024",
    "grpc-java, up, 0",
    "grpc-java, up, 1024",
    "grpc-java, down, 0",
    "grpc-java, down, 1024",
    "tern, up, 65536",
    "tern, down, 65536",
    "grpc-java, up, 65536",
    "grpc-java, down, 65536",
  })
  void everyMessageSentIsCountedAndTheCallEnds(String system, String direction, int size)
      throws Exception {
    EchoTarget target = EchoTarget.create(system, "netty", EchoTarget.Options.defaults());
    try {
      for (int call = 0; call < 2; call++) {
        OneWayStream stream = open(target, direction, size);
        for (int batch = 0; batch < 3; batch++) {
          stream.transfer(1000);
          assertThat(stream.progress().receivedCount()).isEqualTo(1000L * (batch + 1));
        }
        assertThat(stream.close()).isEqualTo(3000);
        assertThat(stream.progress().sentCount()).isEqualTo(3000);
      }
    } finally {
      target.shutdown();
    }
  }

  /**
   * The receiver's handler blocks: the sender must stop once the flow-control window and the
   * transport's ready threshold are used up, not buffer the rest of the batch; when the receiver
   * goes on, everything arrives.
   */
  @ParameterizedTest(name = "{0}, {1}")
  @CsvSource({"tern, up", "tern, down", "grpc-java, up", "grpc-java, down"})
  void aStalledReceiverStopsTheSender(String system, String direction) throws Exception {
    int size = 1024;
    int count = 64 * 1024; // 64 MiB: far more than any window
    EchoTarget target = EchoTarget.create(system, "netty", EchoTarget.Options.defaults());
    try {
      OneWayStream stream = open(target, direction, size);
      OneWayProgress progress = stream.progress();
      progress.pause();
      CompletableFuture<Void> transfer =
          CompletableFuture.runAsync(
              () -> {
                try {
                  stream.transfer(count);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      long sent = awaitSenderStopped(progress);
      long inFlight = sent - progress.receivedCount();
      System.out.printf(
          "%s %s: sender stopped after %d messages, %d in flight (%.2f MiB)%n",
          system, direction, sent, inFlight, inFlight * (size + 5.0) / MIB);
      assertThat(sent).isLessThan(count);
      assertThat(inFlight * (size + 5L)).isLessThan(16L * MIB);
      progress.resume();
      transfer.get(60, TimeUnit.SECONDS);
      assertThat(stream.close()).isEqualTo(count);
    } finally {
      target.shutdown();
    }
  }

  private static OneWayStream open(EchoTarget target, String direction, int size) {
    return direction.equals("up") ? target.clientToServer(size) : target.serverToClient(size);
  }

  /** The sent count once it has not moved for a second (the sender is waiting for ready). */
  private static long awaitSenderStopped(OneWayProgress progress) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    long last = -1;
    long stillSince = System.nanoTime();
    while (System.nanoTime() < deadline) {
      long sent = progress.sentCount();
      if (sent != last) {
        last = sent;
        stillSince = System.nanoTime();
      } else if (sent > 0 && System.nanoTime() - stillSince > TimeUnit.SECONDS.toNanos(1)) {
        return sent;
      }
      Thread.sleep(50);
    }
    return progress.sentCount();
  }
}
