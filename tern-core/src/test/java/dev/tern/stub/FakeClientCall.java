package dev.tern.stub;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A client call that records what the code under test does with it, and lets the test deliver
 * listener events from any thread. Events go through the executor in the call options (as the real
 * runtime does), or run inline if there is none. {@link #cancel} delivers {@code
 * onClose(CANCELLED)} like a real call.
 *
 * <p>Thread-safe: the recorded state is in concurrent containers or volatile fields.
 */
final class FakeClientCall extends ClientCall<String, String> {
  final MethodDescriptor<String, String> method;
  final CallOptions callOptions;
  final FakeChannel channel;

  volatile Listener<String> listener;
  volatile Metadata headers;
  final AtomicInteger requested = new AtomicInteger();
  final List<String> sentMessages = new CopyOnWriteArrayList<>();
  final List<Thread> callbackThreads = new CopyOnWriteArrayList<>();
  volatile boolean halfClosed;
  volatile boolean ready = true;
  volatile Boolean messageCompression;
  volatile boolean cancelled;
  volatile String cancelMessage;
  volatile Throwable cancelCause;
  final CountDownLatch halfClosedLatch = new CountDownLatch(1);
  final CountDownLatch cancelledLatch = new CountDownLatch(1);
  private final AtomicBoolean closed = new AtomicBoolean();

  /** If set, {@link #sendMessage} throws it (as a failing marshaller would). */
  volatile RuntimeException sendMessageFailure;

  FakeClientCall(MethodDescriptor<String, String> method, CallOptions callOptions, FakeChannel ch) {
    this.method = method;
    this.callOptions = callOptions;
    this.channel = ch;
  }

  @Override
  public void start(Listener<String> responseListener, Metadata headers) {
    if (listener != null) {
      throw new IllegalStateException("already started");
    }
    this.headers = headers;
    this.listener = responseListener;
    if (cancelled) {
      // Like a real call cancelled before start: it closes as soon as it has a listener.
      deliverClose(
          Status.CANCELLED.withDescription(cancelMessage).withCause(cancelCause), new Metadata());
    }
  }

  @Override
  public void request(int numMessages) {
    requested.addAndGet(numMessages);
  }

  @Override
  public void cancel(String message, Throwable cause) {
    cancelMessage = message;
    cancelCause = cause;
    cancelled = true;
    cancelledLatch.countDown();
    if (listener == null) {
      return; // start() delivers the close
    }
    deliverClose(Status.CANCELLED.withDescription(message).withCause(cause), new Metadata());
  }

  @Override
  public void halfClose() {
    halfClosed = true;
    halfClosedLatch.countDown();
    channel.onHalfClose(this);
  }

  @Override
  public void sendMessage(String message) {
    RuntimeException failure = sendMessageFailure;
    if (failure != null) {
      throw failure;
    }
    sentMessages.add(message);
  }

  @Override
  public boolean isReady() {
    return ready;
  }

  @Override
  public void setMessageCompression(boolean enabled) {
    messageCompression = enabled;
  }

  void deliverHeaders(Metadata md) {
    deliver(() -> listener.onHeaders(md));
  }

  void deliverMessage(String message) {
    deliver(() -> listener.onMessage(message));
  }

  void deliverReady() {
    deliver(() -> listener.onReady());
  }

  /** Delivers onClose unless the call is already closed (first close wins, as in real calls). */
  void deliverClose(Status status, Metadata trailers) {
    if (closed.compareAndSet(false, true)) {
      deliver(() -> listener.onClose(status, trailers));
    }
  }

  /** Responds to a unary call: one message, then OK. */
  void respond(String message) {
    deliverMessage(message);
    deliverClose(Status.OK, new Metadata());
  }

  boolean awaitHalfClose() throws InterruptedException {
    return halfClosedLatch.await(5, TimeUnit.SECONDS);
  }

  private void deliver(Runnable event) {
    Runnable recording =
        () -> {
          callbackThreads.add(Thread.currentThread());
          event.run();
        };
    Executor executor = callOptions.getExecutor();
    if (executor == null) {
      recording.run();
    } else {
      executor.execute(recording);
    }
  }
}
