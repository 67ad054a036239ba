package dev.tern;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link Deadline.Ticker} that moves only when a test tells it to. Thread-safe. */
final class FakeTicker extends Deadline.Ticker {
  private final AtomicLong nanos;

  FakeTicker() {
    this(0);
  }

  /** Starts at {@code startNanos}, e.g. near {@code Long.MAX_VALUE} to exercise wrap-around. */
  FakeTicker(long startNanos) {
    this.nanos = new AtomicLong(startNanos);
  }

  @Override
  public long nanoTime() {
    return nanos.get();
  }

  void advance(long duration, TimeUnit unit) {
    nanos.addAndGet(unit.toNanos(duration));
  }

  @Override
  public String toString() {
    return "FakeTicker";
  }
}
