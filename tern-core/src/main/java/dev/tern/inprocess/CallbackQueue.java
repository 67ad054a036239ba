package dev.tern.inprocess;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Delivers the listener events of one receiver (one side of a stream, or one side of a connection)
 * one at a time, in the order they were enqueued, on whichever thread happens to {@link #drain} —
 * without a thread of its own.
 *
 * <p>The in-process transport changes state under a lock and {@link #enqueue enqueues} the events
 * that change implies while still holding it (so the queue order matches the order of the state
 * changes); after releasing the lock it calls {@link #drain}, which runs the queued events on the
 * calling thread. If another thread is already draining, {@code drain} returns at once and that
 * thread runs the new events too; a listener that calls back into the transport from inside an
 * event never recurses into a second drain of the same queue. So a receiver sees one event at a
 * time, never under a transport lock.
 *
 * <p>A queue may start <em>held</em>: events accumulate but are not run until {@link #release}. The
 * server side of a stream uses this to keep its events behind {@code streamCreated}, which is when
 * the server runtime installs its listener.
 *
 * <p>An event that throws a {@link RuntimeException} is logged and the next one still runs, so a
 * faulty listener cannot stall the other side's thread.
 *
 * <p>Thread-safe: every method may be called from any thread, including from inside an event.
 */
final class CallbackQueue {
  private static final Logger logger = Logger.getLogger(CallbackQueue.class.getName());

  private final Queue<Runnable> events = new ConcurrentLinkedQueue<>();

  /** True while some thread runs events; that thread owns the right to run them. */
  private final AtomicBoolean draining = new AtomicBoolean();

  private volatile boolean held;

  /** A queue that runs events as soon as they are drained ({@code held} false), or holds them. */
  CallbackQueue(boolean held) {
    this.held = held;
  }

  /** Queues {@code event} behind every event enqueued before it. Does not run anything. */
  void enqueue(Runnable event) {
    events.add(event);
  }

  /** Lets held events run; the caller should {@link #drain} next. */
  void release() {
    held = false;
  }

  /**
   * Runs queued events on this thread until the queue is empty, unless another thread is already
   * running them (it will run these too) or the queue is held.
   */
  void drain() {
    // The outer loop closes the race where an event is enqueued after the inner loop found the
    // queue empty but before the flag was cleared: whoever enqueued it saw the flag still set.
    while (!held && !events.isEmpty() && draining.compareAndSet(false, true)) {
      try {
        Runnable event;
        while (!held && (event = events.poll()) != null) {
          try {
            event.run();
          } catch (RuntimeException e) {
            logger.log(Level.SEVERE, "In-process transport listener threw", e);
          }
        }
      } finally {
        draining.set(false);
      }
    }
  }
}
