package dev.tern.testing;

import dev.tern.Status;
import dev.tern.spi.ClientTransport;
import java.util.concurrent.CompletableFuture;

/** Records the outcome of a ping and the thread it was reported on. Thread-safe. */
public final class RecordingPingCallback implements ClientTransport.PingCallback {
  /** The outcome: a round-trip time or a failure, and the reporting thread's name. */
  public record Outcome(Long roundTripTimeNanos, Status failure, String threadName) {}

  private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
  private volatile boolean calledTwice;

  @Override
  public void onSuccess(long roundTripTimeNanos) {
    record(new Outcome(roundTripTimeNanos, null, Thread.currentThread().getName()));
  }

  @Override
  public void onFailure(Status status) {
    record(new Outcome(null, status, Thread.currentThread().getName()));
  }

  private void record(Outcome result) {
    if (!outcome.complete(result)) {
      calledTwice = true;
    }
  }

  /** Waits for the outcome. */
  public Outcome await() {
    return Await.get(outcome, "the ping callback");
  }

  /** Whether the callback ran more than once (it must run once). */
  public boolean calledTwice() {
    return calledTwice;
  }
}
