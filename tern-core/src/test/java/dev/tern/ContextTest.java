package dev.tern;

import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Context.CancellableContext;
import dev.tern.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ContextTest {
  private static final Context.Key<String> NAME = Context.key("name");
  private static final Context.Key<Integer> COUNT = Context.keyWithDefault("count", 7);
  private static final Context.Key<String> COLOR = Context.key("color");
  private static final Context.Key<String> SHAPE = Context.key("shape");

  private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
  private final ExecutorService otherThread = Executors.newSingleThreadExecutor();
  private final List<Context> notified = new CopyOnWriteArrayList<>();
  private final Context.CancellationListener recorder = notified::add;

  ContextTest() {
    scheduler.setRemoveOnCancelPolicy(true);
  }

  @AfterEach
  void tearDown() {
    scheduler.shutdownNow();
    otherThread.shutdownNow();
    // A failing test must not leak its context into the next one on this thread.
    assertThat(Context.current()).isSameAs(Context.ROOT);
  }

  // ---- values ----

  @Test
  void valuesAreVisibleInTheContextAndItsChildren() {
    Context ctx = Context.ROOT.withValue(NAME, "ada");
    Context child = ctx.withValue(COUNT, 3);

    assertThat(NAME.get(ctx)).isEqualTo("ada");
    assertThat(NAME.get(child)).isEqualTo("ada");
    assertThat(COUNT.get(child)).isEqualTo(3);
    assertThat(NAME.get(Context.ROOT)).isNull();
  }

  @Test
  void childValuesShadowParentValuesWithoutChangingTheParent() {
    Context parent = Context.ROOT.withValue(NAME, "ada");
    Context child = parent.withValue(NAME, "grace");

    assertThat(NAME.get(child)).isEqualTo("grace");
    assertThat(NAME.get(parent)).isEqualTo("ada");
  }

  @Test
  void keysWithDefaultsReturnTheDefaultWhenUnsetOrNull() {
    assertThat(COUNT.get(Context.ROOT)).isEqualTo(7);
    Context set = Context.ROOT.withValue(COUNT, 1);
    assertThat(COUNT.get(set)).isEqualTo(1);
    assertThat(COUNT.get(set.withValue(COUNT, null))).isEqualTo(7);
  }

  @Test
  void keysAreComparedByIdentityNotName() {
    Context.Key<String> otherName = Context.key("name");
    Context ctx = Context.ROOT.withValue(NAME, "ada");

    assertThat(otherName.get(ctx)).isNull();
    assertThat(otherName.toString()).isEqualTo("name");
  }

  @Test
  void withValuesSetsSeveralKeysAtOnce() {
    Context two = Context.ROOT.withValues(NAME, "a", COUNT, 2);
    Context three = Context.ROOT.withValues(NAME, "a", COUNT, 3, COLOR, "red");
    Context four = Context.ROOT.withValues(NAME, "a", COUNT, 4, COLOR, "red", SHAPE, "square");

    assertThat(COUNT.get(two)).isEqualTo(2);
    assertThat(COLOR.get(three)).isEqualTo("red");
    assertThat(List.of(NAME.get(four), COUNT.get(four), COLOR.get(four), SHAPE.get(four)))
        .containsExactly("a", 4, "red", "square");
    // The later pair wins when a key repeats.
    assertThat(NAME.get(Context.ROOT.withValues(NAME, "x", NAME, "y"))).isEqualTo("y");
  }

  @Test
  void resettingKeysManyTimesKeepsTheNewestValueOfEveryKey() {
    List<Context.Key<Integer>> keys = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      keys.add(Context.key("k" + i));
    }
    Context ctx = Context.ROOT;
    for (int round = 0; round < 50; round++) {
      for (int i = 0; i < keys.size(); i++) {
        ctx = ctx.withValue(keys.get(i), round * 100 + i);
      }
    }
    ctx = ctx.withValue(keys.get(3), null);

    assertThat(keys.get(0).get(ctx)).isEqualTo(4900);
    assertThat(keys.get(19).get(ctx)).isEqualTo(4919);
    assertThat(keys.get(3).get(ctx)).isNull(); // the null still shadows older values
  }

  @Test
  void keyGetWithoutArgumentReadsTheCurrentContext() {
    Context.ROOT.withValue(NAME, "ada").run(() -> assertThat(NAME.get()).isEqualTo("ada"));
    assertThat(NAME.get()).isNull();
  }

  // ---- attach / detach ----

  @Test
  void attachReturnsThePreviousContextAndDetachRestoresIt() {
    assertThat(Context.current()).isSameAs(Context.ROOT);
    Context outer = Context.ROOT.withValue(NAME, "outer");
    Context inner = outer.withValue(NAME, "inner");

    Context beforeOuter = outer.attach();
    Context beforeInner = inner.attach();
    assertThat(Context.current()).isSameAs(inner);
    assertThat(beforeInner).isSameAs(outer);
    inner.detach(beforeInner);
    assertThat(Context.current()).isSameAs(outer);
    outer.detach(beforeOuter);

    assertThat(beforeOuter).isSameAs(Context.ROOT);
    assertThat(Context.current()).isSameAs(Context.ROOT);
  }

  @Test
  void mismatchedDetachRestoresAnywayAndLogsSevere() {
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Handler handler =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            records.add(record);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Logger logger = Logger.getLogger(Context.class.getName());
    boolean useParentHandlers = logger.getUseParentHandlers();
    logger.setUseParentHandlers(false); // keep the expected SEVERE out of the build log
    logger.addHandler(handler);
    try {
      Context a = Context.ROOT.withValue(NAME, "a");
      Context b = Context.ROOT.withValue(NAME, "b");
      Context previous = a.attach();

      b.detach(previous); // b was never attached

      assertThat(Context.current()).isSameAs(Context.ROOT);
      assertThat(records).hasSize(1);
      assertThat(records.get(0).getLevel()).isEqualTo(Level.SEVERE);
      assertThat(records.get(0).getThrown()).isNotNull();
    } finally {
      logger.removeHandler(handler);
      logger.setUseParentHandlers(useParentHandlers);
    }
  }

  @Test
  void runAndCallRestoreThePreviousContextEvenWhenTheyThrow() {
    Context ctx = Context.ROOT.withValue(NAME, "ada");

    assertThatThrownBy(
            () ->
                ctx.run(
                    () -> {
                      throw new IllegalStateException("boom");
                    }))
        .hasMessage("boom");
    assertThat(Context.current()).isSameAs(Context.ROOT);

    assertThatThrownBy(
            () ->
                ctx.call(
                    () -> {
                      throw new Exception("checked");
                    }))
        .hasMessage("checked");
    assertThat(Context.current()).isSameAs(Context.ROOT);
  }

  @Test
  void callReturnsTheValueComputedInTheContext() throws Exception {
    Context ctx = Context.ROOT.withValue(NAME, "ada");
    assertThat(ctx.call(() -> NAME.get())).isEqualTo("ada");
  }

  @Test
  void wrappedTasksRunInTheirContextOnAnotherThread() throws Exception {
    Context ctx = Context.ROOT.withValue(NAME, "ada");
    CompletableFuture<String> seenByRunnable = new CompletableFuture<>();
    Callable<String> callable = ctx.wrap(() -> NAME.get());

    Runnable runnable = () -> seenByRunnable.complete(NAME.get());
    otherThread.execute(ctx.wrap(runnable));
    Future<String> seenByCallable = otherThread.submit(callable);

    assertThat(seenByRunnable.get(5, SECONDS)).isEqualTo("ada");
    assertThat(seenByCallable.get(5, SECONDS)).isEqualTo("ada");
    // The pool thread went back to ROOT afterwards.
    assertThat(otherThread.submit(() -> Context.current() == Context.ROOT).get(5, SECONDS))
        .isTrue();
  }

  @Test
  void fixedContextExecutorAlwaysUsesItsContext() throws Exception {
    Context ctx = Context.ROOT.withValue(NAME, "fixed");
    CompletableFuture<String> seen = new CompletableFuture<>();

    Context.ROOT
        .withValue(NAME, "caller")
        .run(() -> ctx.fixedContextExecutor(otherThread).execute(() -> seen.complete(NAME.get())));

    assertThat(seen.get(5, SECONDS)).isEqualTo("fixed");
  }

  @Test
  void currentContextExecutorUsesTheContextCurrentAtSubmission() throws Exception {
    var executor = Context.currentContextExecutor(otherThread);
    CompletableFuture<String> first = new CompletableFuture<>();
    CompletableFuture<String> second = new CompletableFuture<>();

    Context.ROOT
        .withValue(NAME, "one")
        .run(() -> executor.execute(() -> first.complete(NAME.get())));
    Context.ROOT
        .withValue(NAME, "two")
        .run(() -> executor.execute(() -> second.complete(NAME.get())));

    assertThat(first.get(5, SECONDS)).isEqualTo("one");
    assertThat(second.get(5, SECONDS)).isEqualTo("two");
  }

  // ---- cancellation ----

  @Test
  void rootIsNeverCancelledAndIgnoresListeners() {
    Context.ROOT.addListener(recorder, Runnable::run);
    Context.ROOT.removeListener(recorder);

    assertThat(Context.ROOT.isCancelled()).isFalse();
    assertThat(Context.ROOT.cancellationCause()).isNull();
    assertThat(Context.ROOT.getDeadline()).isNull();
  }

  @Test
  void cancelRecordsTheFirstCauseOnly() {
    CancellableContext ctx = Context.ROOT.withCancellation();
    assertThat(ctx.isCancelled()).isFalse();
    assertThat(ctx.cancellationCause()).isNull();
    RuntimeException first = new RuntimeException("first");

    assertThat(ctx.cancel(first)).isTrue();
    assertThat(ctx.cancel(new RuntimeException("second"))).isFalse();

    assertThat(ctx.isCancelled()).isTrue();
    assertThat(ctx.cancellationCause()).isSameAs(first);
  }

  @Test
  void closeCancelsWithACancellationException() {
    CancellableContext ctx = Context.ROOT.withCancellation();
    ctx.close();

    assertThat(ctx.isCancelled()).isTrue();
    assertThat(ctx.cancellationCause()).isInstanceOf(CancellationException.class);
  }

  @Test
  void aCauselessCancelReportsOneCancellationExceptionToTheContextAndItsChildren() {
    CancellableContext parent = Context.ROOT.withCancellation();
    CancellableContext child = parent.withCancellation();
    Context view = child.withValue(Context.key("k"), "v");
    parent.cancel(null);

    Throwable cause = view.cancellationCause();
    assertThat(cause).isInstanceOf(CancellationException.class).hasMessage("context cancelled");
    // Made where it is asked for, so a stack trace would only point at the asker.
    assertThat(cause.getStackTrace()).isEmpty();
    assertThat(child.cancellationCause()).isSameAs(cause);
    assertThat(parent.cancellationCause()).isSameAs(cause);
  }

  @Test
  void cancellationCascadesToEveryDescendantAndTheirListeners() {
    CancellableContext parent = Context.ROOT.withCancellation();
    Context valueChild = parent.withValue(NAME, "x");
    CancellableContext grandchild = valueChild.withCancellation();
    Context greatGrandchild = grandchild.withValue(COUNT, 1);
    parent.addListener(recorder, Runnable::run);
    valueChild.addListener(recorder, Runnable::run);
    greatGrandchild.addListener(recorder, Runnable::run);
    RuntimeException cause = new RuntimeException("stop");

    parent.cancel(cause);

    assertThat(valueChild.isCancelled()).isTrue();
    assertThat(grandchild.isCancelled()).isTrue();
    assertThat(greatGrandchild.cancellationCause()).isSameAs(cause);
    // Each listener is told about the context it was registered on.
    assertThat(notified).containsExactlyInAnyOrder(parent, valueChild, greatGrandchild);
  }

  @Test
  void cancellingAChildLeavesTheParentAlone() {
    CancellableContext parent = Context.ROOT.withCancellation();
    CancellableContext child = parent.withCancellation();
    parent.addListener(recorder, Runnable::run);

    child.cancel(null);

    assertThat(child.isCancelled()).isTrue();
    assertThat(parent.isCancelled()).isFalse();
    assertThat(notified).isEmpty();
  }

  @Test
  void childOfAnAlreadyCancelledContextStartsCancelled() {
    CancellableContext parent = Context.ROOT.withCancellation();
    RuntimeException cause = new RuntimeException("gone");
    parent.cancel(cause);

    CancellableContext child = parent.withValue(NAME, "x").withCancellation();

    assertThat(child.isCancelled()).isTrue();
    assertThat(child.cancellationCause()).isSameAs(cause);
  }

  @Test
  void listenerAddedAfterCancellationRunsPromptlyOnItsExecutor() {
    CancellableContext ctx = Context.ROOT.withCancellation();
    ctx.cancel(null);
    List<Runnable> executorQueue = new ArrayList<>();

    ctx.addListener(recorder, executorQueue::add);

    assertThat(executorQueue).hasSize(1);
    assertThat(notified).isEmpty(); // it runs on the executor, not inline
    executorQueue.get(0).run();
    assertThat(notified).containsExactly(ctx);
  }

  @Test
  void removedListenerIsNotNotified() {
    CancellableContext ctx = Context.ROOT.withCancellation();
    Context child = ctx.withValue(NAME, "x");
    AtomicInteger otherCalls = new AtomicInteger();
    ctx.addListener(recorder, Runnable::run);
    child.addListener(recorder, Runnable::run);
    ctx.addListener(c -> otherCalls.incrementAndGet(), Runnable::run);

    ctx.removeListener(recorder);
    child.removeListener(recorder);
    ctx.cancel(null);

    assertThat(notified).isEmpty();
    assertThat(otherCalls).hasValue(1);
  }

  @Test
  void listenersAreNotifiedOnceEvenIfCancelledTwice() {
    CancellableContext ctx = Context.ROOT.withCancellation();
    ctx.addListener(recorder, Runnable::run);

    ctx.cancel(null);
    ctx.cancel(new RuntimeException("again"));

    assertThat(notified).containsExactly(ctx);
  }

  @Test
  void aThrowingListenerDoesNotStopTheOthers() {
    CancellableContext ctx = Context.ROOT.withCancellation();
    Logger logger = Logger.getLogger(Context.class.getName());
    Level level = logger.getLevel();
    logger.setLevel(Level.OFF); // the failure is expected; keep it out of the build log
    try {
      ctx.addListener(
          c -> {
            throw new IllegalStateException("listener bug");
          },
          Runnable::run);
      ctx.addListener(recorder, Runnable::run);

      assertThat(ctx.cancel(null)).isTrue();
    } finally {
      logger.setLevel(level);
    }
    assertThat(notified).containsExactly(ctx);
  }

  @Test
  void forkKeepsValuesButIsNotCancelledWithItsParent() {
    CancellableContext parent =
        Context.ROOT.withValue(NAME, "ada").withDeadlineAfter(1, DAYS, scheduler);
    Context forked = parent.fork();

    parent.cancel(null);

    assertThat(NAME.get(forked)).isEqualTo("ada");
    assertThat(forked.isCancelled()).isFalse();
    assertThat(forked.getDeadline()).isNull();
  }

  @Test
  void attachedCancellableContextSharesValuesAndCancellationButCannotBeCastToCancel() {
    CancellableContext ctx = Context.ROOT.withValue(NAME, "ada").withCancellation();
    Context previous = ctx.attach();
    Context current;
    try {
      current = Context.current();
    } finally {
      ctx.detach(previous);
    }

    assertThat(current).isNotInstanceOf(CancellableContext.class);
    assertThat(NAME.get(current)).isEqualTo("ada");
    ctx.cancel(null);
    assertThat(current.isCancelled()).isTrue();
  }

  @Test
  void detachAndCancelRestoresThenCancels() {
    CancellableContext ctx = Context.ROOT.withCancellation();
    Context previous = ctx.attach();
    RuntimeException cause = new RuntimeException("done");

    ctx.detachAndCancel(previous, cause);

    assertThat(Context.current()).isSameAs(Context.ROOT);
    assertThat(ctx.cancellationCause()).isSameAs(cause);
  }

  @Test
  void concurrentCancelsHaveExactlyOneWinner() throws Exception {
    CancellableContext ctx = Context.ROOT.withCancellation();
    ctx.addListener(recorder, Runnable::run);
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Boolean>> results = new ArrayList<>();
    try {
      for (int i = 0; i < threads; i++) {
        RuntimeException cause = new RuntimeException("t" + i);
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return ctx.cancel(cause);
                }));
      }
      start.countDown();
      int winners = 0;
      for (Future<Boolean> result : results) {
        winners += result.get(5, SECONDS) ? 1 : 0;
      }
      assertThat(winners).isEqualTo(1);
      assertThat(notified).containsExactly(ctx);
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- deadlines ----

  @Test
  void deadlineIsVisibleToTheContextAndItsChildren() {
    Deadline deadline = Deadline.after(1, DAYS);
    CancellableContext ctx = Context.ROOT.withDeadline(deadline, scheduler);
    try {
      assertThat(ctx.getDeadline()).isSameAs(deadline);
      assertThat(ctx.withValue(NAME, "x").getDeadline()).isSameAs(deadline);
      assertThat(ctx.withCancellation().getDeadline()).isSameAs(deadline);
    } finally {
      ctx.close();
    }
  }

  @Test
  void childCannotExtendItsParentsDeadlineButCanShortenIt() {
    Deadline.Ticker ticker = new FakeClock().getTicker();
    Deadline parentDeadline = Deadline.after(10, SECONDS, ticker);
    CancellableContext parent = Context.ROOT.withDeadline(parentDeadline, scheduler);
    try {
      CancellableContext longer =
          parent.withDeadline(Deadline.after(20, SECONDS, ticker), scheduler);
      Deadline shorterDeadline = Deadline.after(5, SECONDS, ticker);
      CancellableContext shorter = parent.withDeadline(shorterDeadline, scheduler);

      assertThat(longer.getDeadline()).isSameAs(parentDeadline);
      assertThat(shorter.getDeadline()).isSameAs(shorterDeadline);
      // The shorter child owns a timer; the longer one relies on its parent's.
      assertThat(scheduler.getQueue()).hasSize(2);
      shorter.close();
      longer.close();
    } finally {
      parent.close();
    }
  }

  @Test
  void expiredDeadlineCancelsAtOnceWithATimeout() {
    FakeClock clock = new FakeClock();
    Deadline deadline = Deadline.after(1, SECONDS, clock.getTicker());
    clock.forwardTime(1, SECONDS);

    CancellableContext ctx = Context.ROOT.withDeadline(deadline, scheduler);

    assertThat(ctx.isCancelled()).isTrue();
    assertThat(ctx.cancellationCause())
        .isInstanceOf(TimeoutException.class)
        .hasMessage("context timed out");
    assertThat(scheduler.getQueue()).isEmpty();
  }

  @Test
  void deadlineExpiryCancelsTheContextAndNotifiesListeners() throws Exception {
    CancellableContext ctx = Context.ROOT.withDeadlineAfter(20, MILLISECONDS, scheduler);
    Context child = ctx.withValue(NAME, "x");
    CompletableFuture<Throwable> causeSeen = new CompletableFuture<>();

    child.addListener(c -> causeSeen.complete(c.cancellationCause()), Runnable::run);

    assertThat(causeSeen.get(5, SECONDS)).isInstanceOf(TimeoutException.class);
    assertThat(child.isCancelled()).isTrue();
    assertThat(ctx.getDeadline().isExpired()).isTrue();
  }

  @Test
  void cancellingStopsTheDeadlineTimer() {
    CancellableContext ctx = Context.ROOT.withDeadlineAfter(1, DAYS, scheduler);
    assertThat(scheduler.getQueue()).hasSize(1);

    ctx.cancel(null);

    assertThat(scheduler.getQueue()).isEmpty();
    assertThat(ctx.cancellationCause()).isInstanceOf(CancellationException.class);
  }

  @Test
  void deadlineChildOfACancelledContextKeepsTheParentCauseAndNoTimer() {
    CancellableContext parent = Context.ROOT.withCancellation();
    RuntimeException cause = new RuntimeException("parent gone");
    parent.cancel(cause);

    CancellableContext child = parent.withDeadlineAfter(1, DAYS, scheduler);

    assertThat(child.cancellationCause()).isSameAs(cause);
    assertThat(scheduler.getQueue()).isEmpty();
  }

  @Test
  void nullArgumentsAreNamed() {
    assertThatThrownBy(() -> Context.key(null)).hasMessage("debugString");
    assertThatThrownBy(() -> Context.ROOT.withValue(null, "x")).hasMessage("key");
    assertThatThrownBy(() -> Context.ROOT.withDeadline(null, scheduler)).hasMessage("deadline");
    assertThatThrownBy(() -> Context.ROOT.withDeadline(Deadline.after(1, DAYS), null))
        .hasMessage("scheduler");
    assertThatThrownBy(() -> Context.ROOT.addListener(null, Runnable::run)).hasMessage("listener");
    assertThatThrownBy(() -> Context.ROOT.addListener(recorder, null)).hasMessage("executor");
    assertThatThrownBy(() -> Context.ROOT.detach(null)).hasMessage("toAttach");
    assertThatThrownBy(() -> Context.currentContextExecutor(null)).hasMessage("executor");
  }
}
