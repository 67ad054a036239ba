package dev.tern.netty.internal.write;

import dev.tern.internal.FieldHandles;
import dev.tern.internal.HeldWakes;
import io.netty.channel.Channel;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Carries work from application threads to a channel's event loop: commands go into a lock-free
 * queue, and one event-loop task drains it and flushes the channel once per drain. A drain is
 * scheduled only when the queue goes from idle to busy, so a burst of writes costs one task hop and
 * one flush (a blocking queue or a task per write cost several microseconds each in grpc-java's
 * measurements). On a default-executor worker the wake-up for that drain is held until the worker's
 * task ends ({@link HeldWakes}), so a callback's writes are one hand-off however they are spaced; a
 * write from any other thread wakes a held drain at once.
 *
 * <p>Thread-safe: {@link #enqueue} may be called from any thread; commands run on the event loop,
 * in the order they were enqueued.
 */
public final class WriteQueue implements HeldWakes.Wake {
  private static final Logger logger = Logger.getLogger(WriteQueue.class.getName());

  /** Bounds one drain so a flood of commands cannot starve the event loop's reads. */
  private static final int MAX_COMMANDS_PER_DRAIN = 128;

  private static final VarHandle SCHEDULED;
  private static final VarHandle HOLDER;

  static {
    MethodHandles.Lookup lookup = MethodHandles.lookup();
    SCHEDULED = FieldHandles.of(lookup, "scheduled", boolean.class);
    HOLDER = FieldHandles.of(lookup, "holder", Thread.class);
  }

  private final Channel channel;
  private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();

  /**
   * Whether a drain is scheduled: set by CAS through {@link #SCHEDULED}, a field, not an object.
   */
  private volatile boolean scheduled;

  /**
   * The worker holding the wake-up of the scheduled drain, or null: whoever clears it by CAS
   * through {@link #HOLDER} wakes the event loop.
   */
  private volatile Thread holder;

  private final Runnable drain = this::drain;

  public WriteQueue(Channel channel) {
    this.channel = channel;
  }

  /** Runs {@code command} on the event loop after the commands enqueued before it. */
  public void enqueue(Runnable command) {
    queue.add(command);
    scheduleDrain();
  }

  /**
   * Queues {@code command} behind the others without waking the event loop: it runs with the next
   * drain, which a later {@link #enqueue} (or one already scheduled) brings. For writes that should
   * leave together with what follows them, such as a unary response's headers.
   */
  public void enqueueWithoutDrain(Runnable command) {
    queue.add(command);
  }

  private void scheduleDrain() {
    if (SCHEDULED.compareAndSet(this, false, true)) {
      HeldWakes.Worker worker = HeldWakes.holder();
      if (worker == null) {
        executeDrain();
      } else {
        holder = worker;
        worker.hold(this);
      }
    } else {
      Thread held = holder;
      if (held != null && held != Thread.currentThread()) {
        wakeHeld(); // another thread's write does not wait for the holder's task to end
      }
    }
  }

  @Override
  public void wakeHeld() {
    Thread held = holder;
    if (held != null && HOLDER.compareAndSet(this, held, null)) {
      executeDrain();
    }
  }

  private void executeDrain() {
    try {
      channel.eventLoop().execute(drain);
    } catch (RejectedExecutionException e) {
      // The event loop group was shut down under us: nothing can be written any more. Run the
      // commands here so they see the dead channel and release what they hold.
      logger.log(Level.FINE, "event loop rejected the write queue drain", e);
      drainNow();
    }
  }

  private void drain() {
    boolean more = drainNow();
    if (more) {
      scheduleDrain();
    }
  }

  /** Runs queued commands and flushes; returns whether commands remain. */
  private boolean drainNow() {
    try {
      for (int i = 0; i < MAX_COMMANDS_PER_DRAIN; i++) {
        Runnable command = queue.poll();
        if (command == null) {
          break;
        }
        try {
          command.run();
        } catch (RuntimeException e) {
          logger.log(Level.WARNING, "write queue command failed", e);
        }
      }
    } finally {
      channel.flush();
      scheduled = false;
    }
    return !queue.isEmpty();
  }
}
