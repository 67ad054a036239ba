package dev.tern.inprocess;

import dev.tern.internal.wire.GrpcHeaders;
import java.util.ArrayDeque;

/**
 * The messages travelling one way on an {@link InProcessStream}, with the receiver's flow control:
 * how many messages it has requested and still not received, the messages written beyond that, and
 * its size limit. A message is handed on only against a request, in the order written.
 *
 * <p>Not thread-safe: guarded by the owning stream's lock.
 */
final class OneWayMessages {
  /** Written but not yet requested; created on first need (most calls never queue). */
  private ArrayDeque<MeasuredMessage> queued;

  /** Requested by the receiver and not yet handed to it. Positive only while nothing is queued. */
  private int requested;

  /** The receiver's limit; checked as a message is handed on, so a late change still applies. */
  int maxInboundSize = GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE;

  /** Adds {@code numMessages} (positive) requests, saturating rather than overflowing. */
  void request(int numMessages) {
    int sum = requested + numMessages;
    requested = sum < 0 ? Integer.MAX_VALUE : sum;
  }

  /** Whether the receiver can take a message now (the sender is "ready"). */
  boolean hasRequests() {
    return requested > 0;
  }

  /** Whether nothing waits to be requested. */
  boolean isEmpty() {
    return queued == null || queued.isEmpty();
  }

  /**
   * Returns {@code message} if the receiver may take it now (counting it against a request);
   * otherwise queues it behind the others and returns null.
   */
  MeasuredMessage offer(MeasuredMessage message) {
    if (requested > 0 && isEmpty()) {
      requested--;
      return message;
    }
    if (queued == null) {
      queued = new ArrayDeque<>();
    }
    queued.add(message);
    return null;
  }

  /** The next queued message the receiver has requested (counted against it), or null. */
  MeasuredMessage poll() {
    if (requested == 0 || isEmpty()) {
      return null;
    }
    requested--;
    return queued.poll();
  }

  /** Whether {@code message} is within the receiver's size limit. */
  boolean fits(MeasuredMessage message) {
    return message.size <= maxInboundSize;
  }

  /** The description of the failure when {@code message} does not fit. */
  String tooLargeDescription(MeasuredMessage message) {
    return "Received message larger than max (" + message.size + " vs. " + maxInboundSize + ")";
  }

  /** Drops (and closes) every queued message: the receiver is gone. */
  void discardAll() {
    if (queued != null) {
      for (MeasuredMessage m; (m = queued.poll()) != null; ) {
        m.discard();
      }
    }
  }
}
