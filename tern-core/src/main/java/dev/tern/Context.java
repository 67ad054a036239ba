package dev.tern;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An immutable bag of request-scoped values, plus cancellation and deadline state, that follows a
 * request from thread to thread.
 *
 * <p>Each thread has a <em>current</em> context ({@link #current()}, initially {@link #ROOT}). Code
 * makes a context current for a stretch of work with {@link #attach()} / {@link #detach(Context)},
 * or more safely with {@link #run}, {@link #call} and {@link #wrap}. Values are read through typed
 * {@link Key}s; a child context shadows the values of its parent.
 *
 * <p>A context is cancelled when its nearest {@link CancellableContext} ancestor (or itself) is
 * cancelled: explicitly, by its deadline, or because its own parent was cancelled. Cancellation
 * flows only from parents to children. {@link #fork()} makes a context with the same values that is
 * not cancelled with its parent (for work that must outlive the request).
 *
 * <pre>{@code
 * static final Context.Key<String> USER = Context.key("user");
 *
 * Context.current().withValue(USER, "ada").run(() -> {
 *   assert USER.get().equals("ada");
 * });
 * }</pre>
 *
 * <p>Immutable; thread-safe. Cancellation state lives in {@link CancellableContext}, which guards
 * it with a lock and never calls listeners while holding it.
 */
public class Context {

  private static final Logger logger = Logger.getLogger(Context.class.getName());

  // Nulls stand for ROOT, so threads that never attach a context carry no ThreadLocal value.
  private static final ThreadLocal<Context> CURRENT = new ThreadLocal<>();

  /** The context with no values, no deadline, and no cancellation. */
  public static final Context ROOT = new Context(null, null);

  /** Head of this context's value chain; null when there are no values. */
  private final ValueNode values;

  /** The CancellableContext whose state this context shares (itself for one); null if never. */
  final CancellableContext cancellableAncestor;

  private Context(ValueNode values, CancellableContext cancellableAncestor) {
    this.values = values;
    this.cancellableAncestor = cancellableAncestor;
  }

  // For CancellableContext, whose cancellableAncestor is itself.
  private Context(ValueNode values) {
    this.values = values;
    this.cancellableAncestor = (CancellableContext) this;
  }

  /** Returns the context attached to the calling thread, or {@link #ROOT} if none is. */
  public static Context current() {
    Context current = CURRENT.get();
    return current == null ? ROOT : current;
  }

  /** Creates a key whose value is null in contexts that do not set it. */
  public static <T> Key<T> key(String debugString) {
    return new Key<>(debugString, null);
  }

  /** Creates a key whose value is {@code defaultValue} in contexts that do not set it. */
  public static <T> Key<T> keyWithDefault(String debugString, T defaultValue) {
    return new Key<>(debugString, defaultValue);
  }

  /**
   * Returns a child context in which {@code key} has {@code value} (null makes the key read its
   * default). The child shares this context's other values, cancellation and deadline.
   */
  public <V> Context withValue(Key<V> key, V value) {
    return new Context(ValueNode.add(values, key, value), cancellableAncestor);
  }

  /** Like {@link #withValue} for two keys. */
  public <V1, V2> Context withValues(Key<V1> k1, V1 v1, Key<V2> k2, V2 v2) {
    return new Context(ValueNode.add(ValueNode.add(values, k1, v1), k2, v2), cancellableAncestor);
  }

  /** Like {@link #withValue} for three keys. */
  public <V1, V2, V3> Context withValues(Key<V1> k1, V1 v1, Key<V2> k2, V2 v2, Key<V3> k3, V3 v3) {
    ValueNode chain = ValueNode.add(ValueNode.add(values, k1, v1), k2, v2);
    return new Context(ValueNode.add(chain, k3, v3), cancellableAncestor);
  }

  /** Like {@link #withValue} for four keys. */
  public <V1, V2, V3, V4> Context withValues(
      Key<V1> k1, V1 v1, Key<V2> k2, V2 v2, Key<V3> k3, V3 v3, Key<V4> k4, V4 v4) {
    ValueNode chain = ValueNode.add(ValueNode.add(values, k1, v1), k2, v2);
    chain = ValueNode.add(ValueNode.add(chain, k3, v3), k4, v4);
    return new Context(chain, cancellableAncestor);
  }

  /**
   * Returns a child context that can be cancelled independently of this one, and is also cancelled
   * when this one is. Cancel or {@link CancellableContext#close() close} it when done, so that it
   * stops listening to this context.
   */
  public CancellableContext withCancellation() {
    return CancellableContext.create(this, null, null);
  }

  /**
   * Returns a cancellable child context that is cancelled with a {@link TimeoutException} when
   * {@code deadline} expires, using {@code scheduler} to wait. If this context already has an
   * earlier deadline, the child keeps that one: a child can shorten, never extend, its parent's
   * deadline.
   *
   * @throws IllegalArgumentException if {@code deadline} uses a different {@link Deadline.Ticker}
   *     than an inherited deadline, so the two cannot be compared
   */
  public CancellableContext withDeadline(Deadline deadline, ScheduledExecutorService scheduler) {
    Objects.requireNonNull(deadline, "deadline");
    Objects.requireNonNull(scheduler, "scheduler");
    return CancellableContext.create(this, deadline, scheduler);
  }

  /** Like {@link #withDeadline} with {@code Deadline.after(duration, unit)}. */
  public CancellableContext withDeadlineAfter(
      long duration, TimeUnit unit, ScheduledExecutorService scheduler) {
    return withDeadline(Deadline.after(duration, unit), scheduler);
  }

  /**
   * Returns a context with the same values but no cancellation and no deadline, for work that must
   * continue after the current request ends.
   */
  public Context fork() {
    return new Context(values, null);
  }

  /** Returns whether this context (or an ancestor it inherits cancellation from) is cancelled. */
  public boolean isCancelled() {
    return cancellableAncestor != null && cancellableAncestor.isCancelled();
  }

  /**
   * Returns why this context was cancelled, or null if it is not cancelled. A context cancelled
   * without a cause (for example by {@link CancellableContext#close()}) reports a {@link
   * CancellationException}; a deadline reports a {@link TimeoutException}.
   */
  public Throwable cancellationCause() {
    return cancellableAncestor == null ? null : cancellableAncestor.cancellationCause();
  }

  /** Returns the deadline of this context (the nearest among it and its ancestors), or null. */
  public Deadline getDeadline() {
    return cancellableAncestor == null ? null : cancellableAncestor.deadline;
  }

  /**
   * Registers {@code listener} to be told, on {@code executor}, when this context is cancelled. If
   * it already is, the listener is scheduled at once. A context that can never be cancelled ignores
   * the registration.
   */
  public void addListener(CancellationListener listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(executor, "executor");
    if (cancellableAncestor != null) {
      cancellableAncestor.addListenerFor(this, listener, executor);
    }
  }

  /**
   * Unregisters {@code listener} previously added to this same context object; a no-op if it was
   * not registered or has already been notified.
   */
  public void removeListener(CancellationListener listener) {
    Objects.requireNonNull(listener, "listener");
    if (cancellableAncestor != null) {
      cancellableAncestor.removeListenerFor(this, listener);
    }
  }

  /**
   * Makes this context current on the calling thread and returns the one that was current before.
   * Always pair with {@link #detach(Context)} in a {@code finally} block:
   *
   * <pre>{@code
   * Context previous = ctx.attach();
   * try {
   *   ...
   * } finally {
   *   ctx.detach(previous);
   * }
   * }</pre>
   */
  public Context attach() {
    Context previous = current();
    CURRENT.set(this);
    return previous;
  }

  /**
   * Restores {@code toAttach} (the value {@link #attach()} returned) as the current context. If
   * this context is not current, attach and detach calls were mismatched: the restore still
   * happens, and the misuse is logged at {@link Level#SEVERE} with a stack trace, because it means
   * some context leaked onto or off a thread.
   */
  public void detach(Context toAttach) {
    Objects.requireNonNull(toAttach, "toAttach");
    if (current() != this) {
      logger.log(
          Level.SEVERE,
          "Context was not attached when detached; attach() and detach() calls are mismatched",
          new IllegalStateException("mismatched Context.detach()"));
    }
    CURRENT.set(toAttach == ROOT ? null : toAttach);
  }

  /** Runs {@code runnable} with this context current, restoring the previous one afterwards. */
  public void run(Runnable runnable) {
    Context previous = attach();
    try {
      runnable.run();
    } finally {
      detach(previous);
    }
  }

  /** Calls {@code callable} with this context current, restoring the previous one afterwards. */
  public <V> V call(Callable<V> callable) throws Exception {
    Context previous = attach();
    try {
      return callable.call();
    } finally {
      detach(previous);
    }
  }

  /** Returns a runnable that runs {@code runnable} with this context current. */
  public Runnable wrap(Runnable runnable) {
    Objects.requireNonNull(runnable, "runnable");
    return () -> run(runnable);
  }

  /** Returns a callable that calls {@code callable} with this context current. */
  public <C> Callable<C> wrap(Callable<C> callable) {
    Objects.requireNonNull(callable, "callable");
    return () -> call(callable);
  }

  /** Returns an executor that runs every task on {@code executor} with this context current. */
  public Executor fixedContextExecutor(Executor executor) {
    Objects.requireNonNull(executor, "executor");
    return task -> executor.execute(wrap(task));
  }

  /**
   * Returns an executor that runs each task on {@code executor} with the context that was current
   * when the task was submitted.
   */
  public static Executor currentContextExecutor(Executor executor) {
    Objects.requireNonNull(executor, "executor");
    return task -> executor.execute(current().wrap(task));
  }

  /** Looks up the raw value of {@code key}, or null if no context in the chain sets it. */
  private Object lookup(Key<?> key) {
    for (ValueNode node = values; node != null; node = node.next) {
      if (node.key == key) {
        return node.value;
      }
    }
    return null;
  }

  /**
   * Identifies a context value. Keys compare by identity, so the usual pattern is a {@code static
   * final} key per value. Immutable; thread-safe.
   */
  public static final class Key<T> {
    private final String debugString;
    private final T defaultValue;

    private Key(String debugString, T defaultValue) {
      this.debugString = Objects.requireNonNull(debugString, "debugString");
      this.defaultValue = defaultValue;
    }

    /** Returns this key's value in the current context (or the default). */
    public T get() {
      return get(current());
    }

    /** Returns this key's value in {@code context} (or the default if unset or null). */
    public T get(Context context) {
      // Safe: values are only stored through withValue(Key<V>, V), so the type matches the key.
      @SuppressWarnings("unchecked")
      T value = (T) context.lookup(this);
      return value == null ? defaultValue : value;
    }

    @Override
    public String toString() {
      return debugString;
    }
  }

  /** Told when a context it listens to is cancelled. */
  public interface CancellationListener {
    /** Called once, on the executor given at registration, with the context it was added to. */
    void cancelled(Context context);
  }

  /**
   * A persistent singly linked list of key/value pairs, newest first; lookups stop at the first
   * match, so newer values shadow older ones. Contexts usually hold few values, where a list beats
   * a map. Re-setting the same keys many times would grow the chain without bound, so it is
   * compacted (shadowed entries dropped) whenever it grows to twice its distinct size plus slack.
   */
  private static final class ValueNode {
    /** Chain length below which compaction is never attempted. */
    private static final int COMPACTION_SLACK = 16;

    final Key<?> key;
    final Object value;
    final ValueNode next;
    final int depth;

    /** Distinct keys in the chain as of the last compaction (inherited by later nodes). */
    final int compactedSize;

    private ValueNode(Key<?> key, Object value, ValueNode next, int compactedSize) {
      this.key = key;
      this.value = value;
      this.next = next;
      this.depth = next == null ? 1 : next.depth + 1;
      this.compactedSize = compactedSize;
    }

    static ValueNode add(ValueNode chain, Key<?> key, Object value) {
      Objects.requireNonNull(key, "key");
      int compactedSize = chain == null ? 0 : chain.compactedSize;
      ValueNode added = new ValueNode(key, value, chain, compactedSize);
      if (added.depth >= 2 * compactedSize + COMPACTION_SLACK) {
        return compact(added);
      }
      return added;
    }

    private static ValueNode compact(ValueNode chain) {
      List<ValueNode> distinct = new ArrayList<>(chain.depth);
      Set<Key<?>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
      for (ValueNode node = chain; node != null; node = node.next) {
        if (seen.add(node.key)) {
          distinct.add(node);
        }
      }
      int size = distinct.size();
      ValueNode rebuilt = null;
      for (int i = size - 1; i >= 0; i--) {
        ValueNode node = distinct.get(i);
        rebuilt = new ValueNode(node.key, node.value, rebuilt, size);
      }
      return rebuilt;
    }
  }

  /**
   * A context that can be cancelled, explicitly ({@link #cancel}), by its deadline, or because its
   * parent was cancelled. Whoever creates one owns it and should cancel or close it when the work
   * is over, so that it unregisters from its parent and stops its deadline timer.
   *
   * <p>{@link #attach()} makes current a plain (non-cancellable) view of this context with the same
   * values and cancellation, so code reading {@link Context#current()} can observe cancellation but
   * cannot cast its way to {@link #cancel}.
   *
   * <p>Thread-safe: the monitor of {@code guarded} guards the cancelled flag, cause, listener list
   * and deadline timer; the flag and cause are also volatile for lock-free reads. Listeners and
   * executors are always invoked after releasing the lock.
   */
  public static final class CancellableContext extends Context implements Closeable {
    private static final Executor DIRECT = Runnable::run;

    /** The lock, and the state it guards (apart from the volatile flag and cause). */
    private final Guarded guarded = new Guarded();

    /** The parent's cancellable state, which cancels this one; null for a root-like parent. */
    private final CancellableContext parentCancellable;

    /** The nearest of this context's own deadline and its ancestors'; null if none. */
    final Deadline deadline;

    /** What {@link #attach()} makes current: same values, no cancel capability. */
    private final Context attachableView;

    /** Cancels this context when the parent is cancelled; null without a cancellable parent. */
    private final CancellationListener parentListener;

    // Written under guarded's lock; volatile for lock-free reads. A cause given to cancel is
    // written before
    // cancelled; without one, the CancellationException is made on first request (most contexts,
    // such as a server call's on normal completion, are cancelled without anyone asking why).
    private volatile boolean cancelled;
    private volatile Throwable cause;

    private CancellableContext(Context parent, Deadline deadline) {
      super(parent.values);
      this.parentCancellable = parent.cancellableAncestor;
      this.deadline = deadline;
      this.attachableView = new Context(parent.values, this);
      this.parentListener =
          parentCancellable == null
              ? null
              : unused -> cancel(parentCancellable.cancellationCause());
    }

    static CancellableContext create(
        Context parent, Deadline requested, ScheduledExecutorService scheduler) {
      Deadline inherited = parent.getDeadline();
      boolean ownTimer = requested != null && (inherited == null || requested.isBefore(inherited));
      CancellableContext context = new CancellableContext(parent, ownTimer ? requested : inherited);
      if (context.parentCancellable != null) {
        // Runs the listener at once if the parent is already cancelled.
        context.parentCancellable.addListenerFor(context, context.parentListener, DIRECT);
      }
      if (ownTimer) {
        context.startDeadlineTimer(scheduler);
      }
      return context;
    }

    private void startDeadlineTimer(ScheduledExecutorService scheduler) {
      if (cancelled) {
        return; // born cancelled from a cancelled parent: no timer needed
      }
      if (deadline.isExpired()) {
        cancel(new TimeoutException("context timed out"));
        return;
      }
      ScheduledFuture<?> timer =
          deadline.runOnExpiration(
              () -> cancel(new TimeoutException("context timed out")), scheduler);
      synchronized (guarded) {
        if (!cancelled) {
          guarded.deadlineTimer = timer;
          return;
        }
      }
      timer.cancel(false);
    }

    /**
     * Cancels this context and all its descendants, notifying their listeners. Only the first call
     * has an effect.
     *
     * @param cause why, reported by {@link #cancellationCause()}; null means a plain {@link
     *     CancellationException}
     * @return true if this call cancelled the context, false if it already was cancelled
     */
    public boolean cancel(Throwable cause) {
      List<RegisteredListener> toNotify;
      ScheduledFuture<?> timer;
      synchronized (guarded) {
        if (cancelled) {
          return false;
        }
        this.cause = cause;
        cancelled = true;
        toNotify = guarded.listeners;
        guarded.listeners = null;
        timer = guarded.deadlineTimer;
        guarded.deadlineTimer = null;
      }
      if (timer != null) {
        timer.cancel(false);
      }
      if (parentCancellable != null) {
        parentCancellable.removeListenerFor(this, parentListener);
      }
      if (toNotify != null) {
        for (RegisteredListener registered : toNotify) {
          registered.notifyCancelled();
        }
      }
      return true;
    }

    /** Detaches (restoring {@code toAttach}) and then cancels, even if detaching complains. */
    public void detachAndCancel(Context toAttach, Throwable cause) {
      try {
        detach(toAttach);
      } finally {
        cancel(cause);
      }
    }

    /** Cancels this context without a cause; same as {@code cancel(null)}. */
    @Override
    public void close() {
      cancel(null);
    }

    @Override
    public boolean isCancelled() {
      if (cancelled) {
        return true;
      }
      // The parent may be mid-way through notifying its children; do not report a stale state.
      if (parentCancellable != null && parentCancellable.isCancelled()) {
        cancel(parentCancellable.cancellationCause());
        return true;
      }
      return false;
    }

    @Override
    public Throwable cancellationCause() {
      if (!isCancelled()) {
        return null;
      }
      Throwable known = cause;
      if (known != null) {
        return known;
      }
      synchronized (guarded) {
        if (cause == null) {
          cause = new NoCause();
        }
        return cause;
      }
    }

    @Override
    public Context attach() {
      return attachableView.attach();
    }

    @Override
    public void detach(Context toAttach) {
      attachableView.detach(toAttach);
    }

    void addListenerFor(Context context, CancellationListener listener, Executor executor) {
      RegisteredListener registered = new RegisteredListener(context, listener, executor);
      synchronized (guarded) {
        if (!cancelled) {
          if (guarded.listeners == null) {
            guarded.listeners = new ArrayList<>(2);
          }
          guarded.listeners.add(registered);
          return;
        }
      }
      registered.notifyCancelled();
    }

    void removeListenerFor(Context context, CancellationListener listener) {
      synchronized (guarded) {
        if (guarded.listeners == null) {
          return;
        }
        for (int i = 0; i < guarded.listeners.size(); i++) {
          RegisteredListener registered = guarded.listeners.get(i);
          if (registered.listener == listener && registered.context == context) {
            guarded.listeners.remove(i);
            return;
          }
        }
      }
    }

    /**
     * The listener list and deadline timer, guarded by this object's monitor. A private class of
     * its own, rather than annotated fields of this public one, so that code compiled against Tern
     * never reads the build-time {@code @GuardedBy} annotation (javac's classfile lint would warn
     * that it cannot find it).
     */
    private static final class Guarded {
      /** Allocated on first registration, null again once cancelled. */
      @GuardedBy("this")
      List<RegisteredListener> listeners;

      /** The pending deadline task, if any. */
      @GuardedBy("this")
      ScheduledFuture<?> deadlineTimer;
    }
  }

  private static final class RegisteredListener implements Runnable {
    final Context context;
    final CancellationListener listener;
    final Executor executor;

    RegisteredListener(Context context, CancellationListener listener, Executor executor) {
      this.context = context;
      this.listener = listener;
      this.executor = executor;
    }

    void notifyCancelled() {
      try {
        executor.execute(this);
      } catch (RuntimeException e) {
        // One rejecting executor must not stop the other listeners from hearing the news.
        logger.log(Level.WARNING, "Cancellation listener or its executor threw", e);
      }
    }

    @Override
    public void run() {
      listener.cancelled(context);
    }
  }

  /**
   * The cause reported for a context cancelled without one (every server call's context, when the
   * call ends normally). It is made only when asked for, at the asker's place, so a stack trace
   * would point at the asker rather than at whoever cancelled: it has none, which also keeps asking
   * cheap (a bridged grpc-java server asks on every call).
   */
  private static final class NoCause extends CancellationException {
    private static final long serialVersionUID = 1L;

    NoCause() {
      super("context cancelled");
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }
}
