package dev.tern.xds;

import dev.tern.Status;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A watcher that queues what it hears, for tests to wait on. Thread-safe (a blocking queue). */
class RecordingWatcher<T> implements ResourceWatcher<T> {
  static final Duration TIMEOUT = Duration.ofSeconds(20);

  /** One call the watcher received. Exactly one of the fields is set. */
  record Event<T>(T changed, Status error, String doesNotExist) {}

  private final BlockingQueue<Event<T>> events = new LinkedBlockingQueue<>();

  @Override
  public void onChanged(T resource) {
    events.add(new Event<>(resource, null, null));
  }

  @Override
  public void onError(Status error) {
    events.add(new Event<>(null, error, null));
  }

  @Override
  public void onResourceDoesNotExist(String name) {
    events.add(new Event<>(null, null, name));
  }

  /** Waits for the next event that {@code matches}, skipping others; fails on timeout. */
  Event<T> await(Predicate<Event<T>> matches, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (true) {
      Event<T> e = events.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (e == null) {
        throw new AssertionError("no " + what + " within " + TIMEOUT);
      }
      if (matches.test(e)) {
        return e;
      }
    }
  }

  /** Waits for a value that {@code matches}. */
  T awaitChanged(Predicate<T> matches) throws InterruptedException {
    return await(e -> e.changed() != null && matches.test(e.changed()), "matching value").changed();
  }

  T awaitChanged() throws InterruptedException {
    return awaitChanged(v -> true);
  }

  Status awaitError() throws InterruptedException {
    return await(e -> e.error() != null, "error").error();
  }

  String awaitDoesNotExist() throws InterruptedException {
    return await(e -> e.doesNotExist() != null, "does-not-exist").doesNotExist();
  }

  /** The next event if one is queued now, else null. */
  Event<T> poll() {
    return events.poll();
  }
}
