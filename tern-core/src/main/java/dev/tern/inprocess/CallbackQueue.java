package dev.tern.inprocess;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * <p>The events are a linked list with many producers and one consumer (the draining thread): an
 * enqueue swaps itself in as the tail (one atomic exchange) and links its node after the previous
 * tail; only the thread that holds {@code draining} takes from the head, with plain reads and a
 * release store. A general concurrent queue would pay compare-and-swaps on every take and on most
 * emptiness checks, and {@link #drain} (which the transport calls after every change, for both
 * sides) checks emptiness on every call.
 *
 * <p>Thread-safe: every method may be called from any thread, including from inside an event.
 */
final class CallbackQueue {
  private static final Logger logger = Logger.getLogger(CallbackQueue.class.getName());

  private static final VarHandle HEAD;
  private static final VarHandle TAIL;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      HEAD = lookup.findVarHandle(CallbackQueue.class, "head", Node.class);
      TAIL = lookup.findVarHandle(CallbackQueue.class, "tail", Node.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * The node whose event was taken last (at first an empty one): the next event is its {@code
   * next}. Written only by the draining thread (release), read by any thread (acquire).
   */
  private Node head;

  /** The node of the event enqueued last; swapped in by {@link #enqueue}. */
  private Node tail;

  /** True while some thread runs events; that thread owns the right to run them. */
  private final AtomicBoolean draining = new AtomicBoolean();

  private volatile boolean held;

  /** A queue that runs events as soon as they are drained ({@code held} false), or holds them. */
  CallbackQueue(boolean held) {
    this.held = held;
    Node empty = new Node(null);
    HEAD.setRelease(this, empty);
    TAIL.setVolatile(this, empty);
  }

  /** Queues {@code event} behind every event enqueued before it. Does not run anything. */
  void enqueue(Runnable event) {
    Node node = new Node(event);
    Node previous = (Node) TAIL.getAndSet(this, node);
    // Until this link is made the queue looks empty past previous; this thread calls drain next
    // (the transport always does), so the event is run by it or by the thread draining then.
    previous.next = node;
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
    while (!held && !isEmpty() && draining.compareAndSet(false, true)) {
      try {
        Runnable event;
        while (!held && (event = poll()) != null) {
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

  /** Whether no event is linked after the head; any thread may ask. */
  private boolean isEmpty() {
    return ((Node) HEAD.getAcquire(this)).next == null;
  }

  /** Takes the next event, or null if none is linked yet; only the draining thread calls it. */
  private Runnable poll() {
    Node first = ((Node) HEAD.get(this)).next;
    if (first == null) {
      return null;
    }
    Runnable event = first.event;
    first.event = null; // the new head keeps no event alive
    HEAD.setRelease(this, first);
    return event;
  }

  /** One queued event and the link to the one enqueued after it. */
  private static final class Node {
    /** Written before the node is linked; read and cleared by the draining thread. */
    Runnable event;

    volatile Node next;

    Node(Runnable event) {
      this.event = event;
    }
  }
}
