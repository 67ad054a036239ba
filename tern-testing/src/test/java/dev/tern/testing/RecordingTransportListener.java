package dev.tern.testing;

import dev.tern.Status;
import dev.tern.spi.ManagedClientTransport;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Records the life of a client transport ({@link ManagedClientTransport.Listener}) for a test to
 * await, and reports contract breaches: ready, shutdown or terminated twice; terminated before
 * shutdown; in-use reported twice in a row with the same value; anything after terminated. {@link
 * #events()} lists every callback in order. Thread-safe.
 */
public final class RecordingTransportListener implements ManagedClientTransport.Listener {
  private final CountDownLatch ready = new CountDownLatch(1);
  private final CompletableFuture<Status> shutdown = new CompletableFuture<>();
  private final CountDownLatch terminated = new CountDownLatch(1);
  private final BlockingQueue<Boolean> inUseEvents = new LinkedBlockingQueue<>();
  private final List<Boolean> inUseHistory = Collections.synchronizedList(new ArrayList<>());
  private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());

  @Override
  public void transportReady() {
    checkNotTerminated("transportReady");
    if (ready.getCount() == 0) {
      violations.add("transportReady called twice");
    }
    events.add("ready");
    ready.countDown();
  }

  @Override
  public void transportShutdown(Status status) {
    checkNotTerminated("transportShutdown");
    if (status == null) {
      violations.add("transportShutdown with a null status");
    }
    events.add("shutdown:" + (status == null ? null : status.getCode()));
    if (!shutdown.complete(status)) {
      violations.add("transportShutdown called twice: again with " + status);
    }
  }

  @Override
  public void transportTerminated() {
    checkNotTerminated("transportTerminated");
    if (!shutdown.isDone()) {
      violations.add("transportTerminated before transportShutdown");
    }
    events.add("terminated");
    terminated.countDown();
  }

  @Override
  public void transportInUse(boolean inUse) {
    checkNotTerminated("transportInUse(" + inUse + ")");
    synchronized (inUseHistory) {
      boolean previous = inUseHistory.isEmpty() ? false : inUseHistory.get(inUseHistory.size() - 1);
      if (previous == inUse) {
        violations.add(
            "transportInUse(" + inUse + ") without a change (history " + inUseHistory + ")");
      }
      inUseHistory.add(inUse);
    }
    events.add("inUse:" + inUse);
    inUseEvents.add(inUse);
  }

  private void checkNotTerminated(String event) {
    if (terminated.getCount() == 0) {
      violations.add(event + " after transportTerminated");
    }
  }

  /** Waits for {@code transportReady}. */
  public void awaitReady() {
    Await.await(ready, "the client transport to be ready");
  }

  /** Whether {@code transportReady} was called. */
  public boolean isReady() {
    return ready.getCount() == 0;
  }

  /** Waits for {@code transportShutdown} and returns its status. */
  public Status awaitShutdown() {
    return Await.get(shutdown, "the client transport to report shutdown");
  }

  /** Whether {@code transportShutdown} was called. */
  public boolean isShutdown() {
    return shutdown.isDone();
  }

  /** Waits for {@code transportTerminated}. */
  public void awaitTerminated() {
    Await.await(terminated, "the client transport to terminate");
  }

  /** Whether {@code transportTerminated} was called. */
  public boolean isTerminated() {
    return terminated.getCount() == 0;
  }

  /** Waits for the next {@code transportInUse} event and returns its value. */
  public boolean awaitInUse() {
    return Await.poll(inUseEvents, "a transportInUse event");
  }

  /** Every {@code transportInUse} value so far, in order. */
  public List<Boolean> inUseHistory() {
    synchronized (inUseHistory) {
      return List.copyOf(inUseHistory);
    }
  }

  /**
   * The callbacks so far, in the order they came: {@code "ready"}, {@code "shutdown:"} with the
   * status code (e.g. {@code "shutdown:UNAVAILABLE"}), {@code "inUse:true"}, {@code "inUse:false"},
   * {@code "terminated"}.
   */
  public List<String> events() {
    synchronized (events) {
      return List.copyOf(events);
    }
  }

  /** Contract breaches seen so far. */
  public List<String> violations() {
    synchronized (violations) {
      return List.copyOf(violations);
    }
  }
}
