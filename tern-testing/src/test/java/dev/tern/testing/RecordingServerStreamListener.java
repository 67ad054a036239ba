package dev.tern.testing;

import dev.tern.Status;
import dev.tern.spi.ServerStreamListener;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/**
 * Records the events of a server stream for a test to await: messages, half-close, {@code closed}.
 * Also checks the SPI's listener contract (see {@link RecordingStreamListener}): no message after
 * half-close, half-close at most once, {@code closed} exactly once. Thread-safe.
 */
public final class RecordingServerStreamListener extends RecordingStreamListener
    implements ServerStreamListener {
  private final CountDownLatch halfClosed = new CountDownLatch(1);
  private final CompletableFuture<Status> closed = new CompletableFuture<>();

  @Override
  public void halfClosed() {
    enter("halfClosed");
    try {
      if (halfClosed.getCount() == 0) {
        violation("halfClosed called twice");
      }
      event("halfClosed");
      halfClosed.countDown();
    } finally {
      exit();
    }
  }

  @Override
  void checkMessageAllowed() {
    if (halfClosed.getCount() == 0) {
      violation("messageRead after halfClosed");
    }
  }

  @Override
  public void closed(Status status) {
    enter("closed");
    try {
      if (status == null) {
        violation("closed with a null status");
      }
      markClosed();
      event("closed:" + (status == null ? null : status.getCode()));
      if (!closed.complete(status)) {
        violation("closed called twice: again with " + status);
      }
    } finally {
      exit();
    }
  }

  /** Waits for the client's half-close. */
  public void awaitHalfClosed() {
    Await.await(halfClosed, "the client to half-close");
  }

  /** Whether the client half-closed. */
  public boolean isHalfClosed() {
    return halfClosed.getCount() == 0;
  }

  /** Waits for {@code closed} and returns its status. */
  public Status awaitClosed() {
    return Await.get(closed, "the server stream to close");
  }

  @Override
  public String toString() {
    return "server stream listener";
  }
}
