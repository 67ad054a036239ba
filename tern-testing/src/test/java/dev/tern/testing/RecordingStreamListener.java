package dev.tern.testing;

import dev.tern.spi.Stream;
import dev.tern.spi.StreamListener;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What client and server stream listeners record in common: messages, {@code onReady} signals, and
 * breaches of the SPI's listener contract (overlapping callbacks, events after {@code closed}, a
 * message nobody requested), which {@link #violations()} lists for the test to assert empty.
 *
 * <p>Request tracking: call {@link #request(Stream, int)} instead of {@code stream.request(n)}, so
 * the listener knows how many messages it may receive and reports any beyond that.
 *
 * <p>{@link #events()} lists every callback in order, for tests that check the sequence as well as
 * the content.
 *
 * <p>Thread-safe: callbacks come from the transport's threads, queries from the test thread.
 */
public abstract class RecordingStreamListener implements StreamListener {
  private final BlockingQueue<byte[]> messages = new LinkedBlockingQueue<>();
  private final AtomicInteger messagesRead = new AtomicInteger();
  private final AtomicInteger messagesRequested = new AtomicInteger();
  private final Semaphore readySignals = new Semaphore(0);
  private final AtomicBoolean inCallback = new AtomicBoolean();
  private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());
  private volatile boolean closed;

  /** Requests {@code numMessages} from {@code stream}, recording that they may now arrive. */
  public void request(Stream stream, int numMessages) {
    // Before the call: a transport may deliver from inside request().
    messagesRequested.addAndGet(numMessages);
    stream.request(numMessages);
  }

  @Override
  public void messageRead(InputStream message) {
    enter("messageRead");
    try {
      byte[] bytes = TestMarshallers.readAll(message);
      int count = messagesRead.incrementAndGet();
      if (count > messagesRequested.get()) {
        violation("message #" + count + " delivered but only " + messagesRequested + " requested");
      }
      checkMessageAllowed();
      event("message");
      messages.add(bytes);
    } finally {
      exit();
    }
  }

  @Override
  public void onReady() {
    enter("onReady");
    try {
      event("onReady");
      readySignals.release();
    } finally {
      exit();
    }
  }

  /** Waits for the next message and returns its bytes. */
  public byte[] awaitMessage() {
    return Await.poll(messages, "a message on " + this);
  }

  /** How many messages the transport delivered so far. */
  public int messagesRead() {
    return messagesRead.get();
  }

  /** How many delivered messages the test has not taken with {@link #awaitMessage()}. */
  public int messagesNotTaken() {
    return messages.size();
  }

  /**
   * Waits until {@code stream.isReady()} is true, checking again after each {@code onReady}. Call
   * from the thread that drives {@code stream}.
   */
  public void awaitReady(Stream stream) {
    long deadline = Await.deadline();
    while (true) {
      readySignals.drainPermits();
      if (stream.isReady()) {
        return;
      }
      if (!Await.acquireUntil(readySignals, deadline)) {
        throw new AssertionError(
            "timed out after " + Await.TIMEOUT + " waiting for " + stream + " to become ready");
      }
    }
  }

  /** Whether {@code closed} was delivered. */
  public boolean isClosed() {
    return closed;
  }

  /**
   * The callbacks so far, in the order they came: {@code "headers"}, {@code "message"}, {@code
   * "onReady"}, {@code "halfClosed"}, and {@code "closed:"} with the status code (e.g. {@code
   * "closed:CANCELLED"}). Message contents are in {@link #awaitMessage()}.
   */
  public List<String> events() {
    synchronized (events) {
      return List.copyOf(events);
    }
  }

  /** Breaches of the listener contract seen so far; a conforming transport causes none. */
  public List<String> violations() {
    synchronized (violations) {
      return List.copyOf(violations);
    }
  }

  /** Subclasses may reject a message (for example after half-close). */
  void checkMessageAllowed() {}

  void markClosed() {
    closed = true;
  }

  /** Appends to {@link #events()}. */
  void event(String event) {
    events.add(event);
  }

  void violation(String description) {
    violations.add(description);
  }

  /** Checks that callbacks do not overlap and that none follows {@code closed}. */
  void enter(String callback) {
    if (inCallback.getAndSet(true)) {
      violation(callback + " overlapped another callback (must be one thread at a time)");
    }
    if (closed) {
      violation(callback + " after closed");
    }
  }

  void exit() {
    inCallback.set(false);
  }
}
