package dev.tern.netty.balancing;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.Grpc;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.testing.Await;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Keeps {@code concurrency} unary calls of {@link ServerNameService} in flight on a channel: each
 * of that many chains starts its next call when the previous one closes, until {@link #stop()} or
 * until {@code maxCalls} calls have started. Records every call's {@link Outcome}, and counts the
 * calls in flight per server from the client side: a call counts against the address of the
 * connection its stream was given when it started ({@link Grpc#TRANSPORT_ATTR_REMOTE_ADDR}), until
 * it closes.
 *
 * <p>Calls are fail-fast, with a 10 s deadline so that a stuck call fails the test instead of
 * hanging it. Waits end after {@link Await#TIMEOUT} with an {@link AssertionError}.
 *
 * <p>Thread-safe: calls close on the channel's executor threads; the test thread reads and waits.
 */
final class CallLoad {
  private static final long CALL_DEADLINE_SECONDS = 10;

  /**
   * One call: who answered (null if it failed), its status, the connection it was given when it
   * started (null if it had to wait for one) and the one it closed on (null if it never had one).
   */
  record Outcome(
      int chain,
      String answeredBy,
      Status status,
      SocketAddress startedOn,
      long startedOnNanos,
      SocketAddress closedOn,
      long endNanos,
      boolean headersReceived) {
    boolean ok() {
      return status.isOk();
    }

    @Override
    public String toString() {
      return (ok() ? "answered by " + answeredBy : status.toString())
          + " (chain "
          + chain
          + ", started on "
          + startedOn
          + ", closed on "
          + closedOn
          + ")";
    }
  }

  private final Channel channel;
  private final long maxCalls;
  private final AtomicLong started = new AtomicLong();
  private final Map<SocketAddress, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private volatile boolean stopping;

  @GuardedBy("this")
  private final List<Outcome> outcomes = new ArrayList<>();

  @GuardedBy("this")
  private int runningChains;

  private CallLoad(Channel channel, long maxCalls) {
    this.channel = channel;
    this.maxCalls = maxCalls;
  }

  /** Starts {@code concurrency} chains of calls that go on until {@link #stop()}. */
  static CallLoad start(Channel channel, int concurrency) {
    return start(channel, concurrency, Long.MAX_VALUE);
  }

  /** Starts {@code concurrency} chains of calls that end after {@code maxCalls} calls in all. */
  static CallLoad start(Channel channel, int concurrency, long maxCalls) {
    CallLoad load = new CallLoad(channel, maxCalls);
    synchronized (load) {
      load.runningChains = concurrency;
    }
    for (int chain = 0; chain < concurrency; chain++) {
      load.next(chain);
    }
    return load;
  }

  /** Calls closed so far. */
  synchronized int completed() {
    return outcomes.size();
  }

  /** The outcomes so far, in the order the calls closed. */
  synchronized List<Outcome> outcomes() {
    return List.copyOf(outcomes);
  }

  /** Calls whose stream went to {@code server} and have not closed yet. */
  int inFlightOn(SocketAddress server) {
    AtomicInteger count = inFlight.get(server);
    return count == null ? 0 : count.get();
  }

  /** Waits until {@code count} calls have closed. */
  void awaitCompleted(int count) {
    awaitOutcomes(list -> list.size() >= count, count + " calls to close");
  }

  /** Waits until each of {@code servers} has answered a call. */
  void awaitAnsweredBy(Collection<String> servers) {
    awaitOutcomes(
        list -> {
          Set<String> answered = new HashSet<>();
          for (Outcome outcome : list) {
            answered.add(outcome.answeredBy());
          }
          return answered.containsAll(servers);
        },
        "answers from each of " + servers);
  }

  /** Waits until every chain has ended (after {@code maxCalls} calls, or after a stop). */
  List<Outcome> awaitDone() {
    synchronized (this) {
      long deadline = System.nanoTime() + Await.TIMEOUT.toNanos();
      while (runningChains > 0) {
        waitUntil(deadline, "the calls to end (" + runningChains + " chains still running)");
      }
      return List.copyOf(outcomes);
    }
  }

  /** Starts no more calls, waits for those in flight, and returns every outcome. */
  List<Outcome> stop() {
    stopping = true;
    return awaitDone();
  }

  /** Calls per server, among {@code outcomes} that succeeded. */
  static Map<String, Integer> answersPerServer(List<Outcome> outcomes) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String host : ServerFarm.HOSTS) {
      counts.put(host, 0);
    }
    for (Outcome outcome : outcomes) {
      if (outcome.ok()) {
        counts.merge(outcome.answeredBy(), 1, Integer::sum);
      }
    }
    return counts;
  }

  private synchronized void awaitOutcomes(Predicate<List<Outcome>> condition, String what) {
    long deadline = System.nanoTime() + Await.TIMEOUT.toNanos();
    while (!condition.test(outcomes)) {
      if (runningChains == 0) {
        throw new AssertionError("the calls ended before " + what + "; outcomes: " + summary());
      }
      waitUntil(deadline, what);
    }
  }

  @GuardedBy("this")
  private void waitUntil(long deadline, String what) {
    long remaining = deadline - System.nanoTime();
    if (remaining <= 0) {
      throw new AssertionError(
          "timed out after " + Await.TIMEOUT + " waiting for " + what + "; outcomes: " + summary());
    }
    try {
      TimeUnit.NANOSECONDS.timedWait(this, remaining);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for " + what, e);
    }
  }

  @GuardedBy("this")
  private String summary() {
    Map<String, Integer> byStatus = new LinkedHashMap<>();
    for (Outcome outcome : outcomes) {
      String key = outcome.ok() ? outcome.answeredBy() : outcome.status().getCode().toString();
      byStatus.merge(key, 1, Integer::sum);
    }
    return byStatus.toString();
  }

  private void next(int chain) {
    if (stopping || started.incrementAndGet() > maxCalls) {
      synchronized (this) {
        runningChains--;
        notifyAll();
      }
      return;
    }
    ClientCall<String, String> call =
        channel.newCall(
            ServerNameService.GET,
            CallOptions.DEFAULT.withDeadlineAfter(CALL_DEADLINE_SECONDS, TimeUnit.SECONDS));
    TrackedCall tracked = new TrackedCall(chain, call);
    call.start(tracked, new Metadata());
    call.request(1);
    call.sendMessage("who answers?");
    call.halfClose();
    tracked.started();
  }

  private synchronized void record(Outcome outcome) {
    outcomes.add(outcome);
    notifyAll();
  }

  /** One call in flight, counted against its server while it is. */
  private final class TrackedCall extends ClientCall.Listener<String> {
    private final int chain;
    private final ClientCall<String, String> call;
    private volatile String answer;
    private volatile boolean headersReceived;

    @GuardedBy("this")
    private SocketAddress startedOn;

    @GuardedBy("this")
    private long startedOnNanos;

    @GuardedBy("this")
    private boolean closed;

    TrackedCall(int chain, ClientCall<String, String> call) {
      this.chain = chain;
      this.call = call;
    }

    /** After start: counts the call against the server its stream went to, if it has one yet. */
    synchronized void started() {
      if (closed) {
        return;
      }
      startedOn = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
      if (startedOn != null) {
        inFlight.computeIfAbsent(startedOn, a -> new AtomicInteger()).incrementAndGet();
        startedOnNanos = System.nanoTime(); // after the count: see ServerLossTest's bound
      }
    }

    @Override
    public void onHeaders(Metadata headers) {
      headersReceived = true;
    }

    @Override
    public void onMessage(String message) {
      answer = message;
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      SocketAddress closedOn = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
      SocketAddress on;
      long onNanos;
      synchronized (this) {
        closed = true;
        on = startedOn;
        onNanos = startedOnNanos;
        if (on != null) {
          inFlight.get(on).decrementAndGet();
        }
      }
      record(
          new Outcome(
              chain,
              status.isOk() ? answer : null,
              status,
              on,
              onNanos,
              closedOn,
              System.nanoTime(),
              headersReceived));
      next(chain);
    }
  }
}
