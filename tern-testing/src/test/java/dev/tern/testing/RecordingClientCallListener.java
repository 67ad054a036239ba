package dev.tern.testing;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Records the events of a {@link ClientCall} for a test to await, and reports breaches of the
 * listener contract (headers twice or after a message, anything after {@code onClose}, {@code
 * onClose} twice) in {@link #violations()}. Thread-safe.
 *
 * @param <T> the response type
 */
public final class RecordingClientCallListener<T> extends ClientCall.Listener<T> {
  /** The arguments of {@code onClose}. */
  public record Closed(Status status, Metadata trailers) {}

  private final CompletableFuture<Metadata> headers = new CompletableFuture<>();
  private final BlockingQueue<T> messages = new LinkedBlockingQueue<>();
  private final AtomicInteger messagesReceived = new AtomicInteger();
  private final CompletableFuture<Closed> closed = new CompletableFuture<>();
  private final Semaphore readySignals = new Semaphore(0);
  private final List<String> violations = Collections.synchronizedList(new ArrayList<>());

  /**
   * Starts a call of {@code method} on {@code channel}, asks for one response, sends {@code
   * request} and half-closes; returns the listener recording the call.
   */
  public static <ReqT, RespT> RecordingClientCallListener<RespT> startUnary(
      Channel channel, MethodDescriptor<ReqT, RespT> method, CallOptions options, ReqT request) {
    ClientCall<ReqT, RespT> call = channel.newCall(method, options);
    RecordingClientCallListener<RespT> listener = new RecordingClientCallListener<>();
    call.start(listener, new Metadata());
    call.request(1);
    call.sendMessage(request);
    call.halfClose();
    return listener;
  }

  @Override
  public void onHeaders(Metadata headers) {
    checkOpen("onHeaders");
    if (messagesReceived.get() > 0) {
      violations.add("onHeaders after a message");
    }
    if (!this.headers.complete(headers)) {
      violations.add("onHeaders called twice");
    }
  }

  @Override
  public void onMessage(T message) {
    checkOpen("onMessage");
    messagesReceived.incrementAndGet();
    messages.add(message);
  }

  @Override
  public void onClose(Status status, Metadata trailers) {
    if (status == null || trailers == null) {
      violations.add("onClose with a null argument: " + status + ", trailers " + trailers);
    }
    if (!closed.complete(new Closed(status, trailers))) {
      violations.add("onClose called twice: again with " + status);
    }
  }

  @Override
  public void onReady() {
    checkOpen("onReady");
    readySignals.release();
  }

  private void checkOpen(String event) {
    if (closed.isDone()) {
      violations.add(event + " after onClose");
    }
  }

  /** Waits for the response headers. */
  public Metadata awaitHeaders() {
    return Await.get(headers, "response headers");
  }

  /** Whether response headers arrived. */
  public boolean headersReceived() {
    return headers.isDone();
  }

  /** Waits for the next response message. */
  public T awaitMessage() {
    return Await.poll(messages, "a response message");
  }

  /** How many messages arrived so far. */
  public int messagesReceived() {
    return messagesReceived.get();
  }

  /** Waits for {@code onClose}. */
  public Closed awaitClose() {
    return Await.get(closed, "the call to close");
  }

  /** Waits for {@code onClose} and returns the status. */
  public Status awaitStatus() {
    return awaitClose().status();
  }

  /** Whether {@code onClose} was called. */
  public boolean isClosed() {
    return closed.isDone();
  }

  /**
   * Waits until {@code call.isReady()}, checking again after each {@code onReady}. Call from the
   * thread that drives {@code call}.
   */
  public void awaitReady(ClientCall<?, ?> call) {
    long deadline = Await.deadline();
    while (true) {
      readySignals.drainPermits();
      if (call.isReady()) {
        return;
      }
      if (!Await.acquireUntil(readySignals, deadline)) {
        throw new AssertionError(
            "timed out after " + Await.TIMEOUT + " waiting for the call to be ready");
      }
    }
  }

  /** Breaches of the listener contract seen so far. */
  public List<String> violations() {
    synchronized (violations) {
      return List.copyOf(violations);
    }
  }
}
