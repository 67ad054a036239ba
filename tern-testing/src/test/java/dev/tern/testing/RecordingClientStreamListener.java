package dev.tern.testing;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.spi.ClientStreamListener;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Records the events of a client stream for a test to await: headers, messages, {@code closed}.
 * Also checks the SPI's listener contract (see {@link RecordingStreamListener}): headers at most
 * once and before any message, {@code closed} exactly once with non-null trailers. Thread-safe.
 */
public final class RecordingClientStreamListener extends RecordingStreamListener
    implements ClientStreamListener {

  /** The arguments of {@link ClientStreamListener#closed}. */
  public record Closed(Status status, RpcProgress progress, Metadata trailers) {}

  private final BlockingQueue<Metadata> headers = new LinkedBlockingQueue<>();
  private final CompletableFuture<Closed> closed = new CompletableFuture<>();
  private volatile boolean headersReceived;

  @Override
  public void headersRead(Metadata headers) {
    enter("headersRead");
    try {
      if (headersReceived) {
        violation("headersRead called twice");
      }
      if (messagesRead() > 0) {
        violation("headersRead after a message");
      }
      if (headers == null) {
        violation("headersRead with null headers");
      }
      headersReceived = true;
      event("headers");
      this.headers.add(headers == null ? new Metadata() : headers);
    } finally {
      exit();
    }
  }

  @Override
  public void closed(Status status, RpcProgress progress, Metadata trailers) {
    enter("closed");
    try {
      if (status == null || progress == null || trailers == null) {
        violation(
            "closed with a null argument: " + status + ", " + progress + ", trailers " + trailers);
      }
      markClosed();
      event("closed:" + (status == null ? null : status.getCode()));
      if (!closed.complete(new Closed(status, progress, trailers))) {
        violation("closed called twice: again with " + status);
      }
    } finally {
      exit();
    }
  }

  /** Waits for the response headers. */
  public Metadata awaitHeaders() {
    return Await.poll(headers, "response headers");
  }

  /** Whether {@code headersRead} was called. */
  public boolean headersReceived() {
    return headersReceived;
  }

  /** Waits for {@code closed} and returns its arguments. */
  public Closed awaitClosed() {
    return Await.get(closed, "the client stream to close");
  }

  /** Waits for {@code closed} and returns its status. */
  public Status awaitStatus() {
    return awaitClosed().status();
  }

  @Override
  public String toString() {
    return "client stream listener";
  }
}
