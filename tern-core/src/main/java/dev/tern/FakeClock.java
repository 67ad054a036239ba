package dev.tern;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A deterministic clock and {@link ScheduledExecutorService} for tests: time stands still until the
 * test moves it with {@link #forwardTime}, and tasks run on the thread that moves it, never on a
 * thread of their own.
 *
 * <p>Pass {@link #getTicker()} wherever a {@link Deadline.Ticker} is taken and the clock itself
 * wherever a scheduler is, so deadlines, timeouts and back-offs happen exactly when the test says.
 *
 * <ul>
 *   <li>{@link #schedule} runs the task once the clock reaches its due time; {@link
 *       #scheduleAtFixedRate} and {@link #scheduleWithFixedDelay} reschedule it after each run.
 *   <li>{@link #execute} and {@code submit} queue the task at the current time: it runs at the next
 *       {@link #runDueTasks()} or {@link #forwardTime}, not inline.
 *   <li>{@link #forwardTime} steps through the due tasks in order of due time (ties in order of
 *       scheduling), setting the clock to each task's due time while it runs, so a task that
 *       schedules another one within the window sees it run in the same call.
 *   <li>A task that throws: for {@code schedule*} and {@code submit} the exception is kept in the
 *       task's future (as any {@link ScheduledExecutorService} does) and a periodic task stops; for
 *       {@link #execute}, which has no future to keep it, it propagates out of {@link #forwardTime}
 *       or {@link #runDueTasks()} so the test sees it (the tasks not yet run stay pending). With
 *       {@link #setRethrowTaskFailures setRethrowTaskFailures(true)}, every task's exception also
 *       propagates so, for code under test that schedules a timer and never looks at its future.
 *   <li>A cancelled task leaves the pending set at once.
 *   <li>{@link #shutdown()} rejects new tasks and cancels periodic ones; one-shot tasks already
 *       scheduled still run when time reaches them. {@link #shutdownNow()} also removes the pending
 *       tasks (without running or cancelling them) and returns them. The clock is terminated once
 *       it is shut down and no task is pending or running.
 *   <li>Blocking methods ({@code get()} on a task's future, {@link #awaitTermination}, {@code
 *       invokeAll}, {@code invokeAny}) wait in real time for another thread to move the clock; from
 *       the only thread that moves it they would wait in vain.
 * </ul>
 *
 * <p>For tests; it lives in tern-core, beside the {@link Deadline.Ticker} it fakes, because
 * tern-core's own tests use it and tern-testing (the test kit) depends on tern-core.
 *
 * <p>Thread-safe: one lock guards the task queue, the time and the tasks' states; tasks run outside
 * the lock, so a task may schedule, cancel, or even move the clock itself. (The state lives in a
 * package-private class this one forwards to, so that code compiled against it with {@code
 * -Xlint:all} never reads Tern's build-time lock annotations.)
 */
public final class FakeClock extends AbstractExecutorService implements ScheduledExecutorService {
  private final ManualScheduler clock;

  /** A clock at time 0. */
  public FakeClock() {
    this(0);
  }

  /**
   * A clock at {@code startNanos}; a value near {@link Long#MAX_VALUE} checks that code under test
   * only compares differences of ticker values, as it must.
   */
  public FakeClock(long startNanos) {
    this.clock = new ManualScheduler(startNanos);
  }

  /**
   * Whether an exception thrown by a task from {@code schedule*} or {@code submit} also propagates
   * out of the {@link #forwardTime} or {@link #runDueTasks()} call that ran it, as one from {@link
   * #execute} always does (default false). The exception is kept in the task's future either way.
   * Turn it on when the code under test schedules timers and ignores their futures, so that a timer
   * that throws fails the test instead of going unnoticed; the tasks not yet run stay pending.
   */
  public void setRethrowTaskFailures(boolean rethrow) {
    clock.setRethrowTaskFailures(rethrow);
  }

  /** A ticker that reads this clock's time. */
  public Deadline.Ticker getTicker() {
    return clock.getTicker();
  }

  /** The clock's current time, in nanoseconds from an arbitrary origin. */
  public long currentTimeNanos() {
    return clock.currentTimeNanos();
  }

  /**
   * Moves the clock forward by {@code duration}, running every task that falls due on the way.
   *
   * @return the number of task runs (a periodic task counts once per run)
   * @throws IllegalArgumentException if {@code duration} is negative
   */
  public int forwardTime(long duration, TimeUnit unit) {
    return clock.forwardTime(duration, unit);
  }

  /** Same as {@code forwardTime(nanos, NANOSECONDS)}. */
  public int forwardNanos(long nanos) {
    return clock.forwardNanos(nanos);
  }

  /** Runs the tasks that are due now without moving the clock; returns how many ran. */
  public int runDueTasks() {
    return clock.runDueTasks();
  }

  /** The tasks waiting to run, earliest first (a snapshot). */
  public Collection<ScheduledFuture<?>> getPendingTasks() {
    return clock.getPendingTasks();
  }

  /** How many tasks are waiting to run. */
  public int numPendingTasks() {
    return clock.numPendingTasks();
  }

  /** How many of the waiting tasks are due now. */
  public int numDueTasks() {
    return clock.numDueTasks();
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return clock.schedule(command, delay, unit);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    return clock.schedule(callable, delay, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    return clock.scheduleAtFixedRate(command, initialDelay, period, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return clock.scheduleWithFixedDelay(command, initialDelay, delay, unit);
  }

  @Override
  public void execute(Runnable command) {
    clock.execute(command);
  }

  @Override
  public void shutdown() {
    clock.shutdown();
  }

  @Override
  public List<Runnable> shutdownNow() {
    return clock.shutdownNow();
  }

  @Override
  public boolean isShutdown() {
    return clock.isShutdown();
  }

  @Override
  public boolean isTerminated() {
    return clock.isTerminated();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return clock.awaitTermination(timeout, unit);
  }

  @Override
  public String toString() {
    return clock.toString();
  }
}
