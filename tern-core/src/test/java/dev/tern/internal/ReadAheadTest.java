package dev.tern.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.KnownLength;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * ReadAhead against a fake transport that behaves like the deframer: it delivers a received message
 * only against a request, and a request made while it delivers acts when the delivery returns.
 */
class ReadAheadTest {

  /** The messages delivered to the application side, as their first byte (their index). */
  private final List<Integer> delivered = new ArrayList<>();

  private final List<String> events = new ArrayList<>();
  private final FakeTransport transport = new FakeTransport();
  private ReadAhead readAhead =
      new ReadAhead(
          transport::request,
          new ReadAhead.Sink() {
            @Override
            public void deliver(InputStream message) {
              delivered.add(first(message));
              events.add("message");
            }

            @Override
            public void end() {
              events.add("end");
            }
          });

  @Test
  void deliversOnlyWhatTheApplicationAskedFor_inOrder() {
    transport.receive(10, 0);
    assertThat(delivered).isEmpty();

    readAhead.request(3);

    assertThat(delivered).containsExactly(0, 1, 2);
    readAhead.request(2);
    assertThat(delivered).containsExactly(0, 1, 2, 3, 4);
  }

  @Test
  void takesWhatTheTransportHoldsAheadOfTheRequests_upToTheMessageLimit() {
    transport.receive(100, 0);

    readAhead.request(1);

    assertThat(delivered).containsExactly(0);
    assertThat(readAhead.queued()).isEqualTo(ReadAhead.MAX_MESSAGES);
    // One application request, then one request per message read ahead, all on the transport's
    // side of the fake (what the transport's own thread does at no cost).
    assertThat(transport.taken).isEqualTo(1 + ReadAhead.MAX_MESSAGES);
  }

  @Test
  void anApplicationTakingQueuedMessagesAsksTheTransportOnlyOnceTheQueueRunsLow() {
    transport.receive(1000, 0);
    readAhead.request(1); // fills the queue
    int calls = transport.requestCalls;

    int taken = 0;
    // Taking a message that leaves more than LOW_WATER queued asks nothing of the transport.
    while (readAhead.queued() > ReadAhead.LOW_WATER + 1) {
      readAhead.request(1);
      taken++;
    }
    assertThat(transport.requestCalls).isEqualTo(calls);
    assertThat(taken).isEqualTo(ReadAhead.MAX_MESSAGES - ReadAhead.LOW_WATER - 1);

    readAhead.request(1); // leaves LOW_WATER queued: one request, which refills the queue
    assertThat(transport.requestCalls).isGreaterThan(calls);
    assertThat(readAhead.queued()).isEqualTo(ReadAhead.MAX_MESSAGES);
    assertThat(delivered).hasSize(taken + 2).isSorted();
  }

  @Test
  void largeMessagesAreHeldAheadOnlyUpToTheByteLimit() {
    int size = 40 * 1024;
    transport.receive(10, size);

    readAhead.request(1);

    // 40 KiB is under the 64 KiB limit, so a second is asked for; then the limit is passed.
    assertThat(readAhead.queued()).isEqualTo(2);
    assertThat(transport.heldBytes()).isEqualTo(7L * size);
  }

  @Test
  void aMessageOfUnknownLengthCountsAsTheWholeByteLimit() {
    for (int i = 0; i < 5; i++) {
      transport.receiveUnknownLength(i);
    }

    readAhead.request(1);

    assertThat(delivered).containsExactly(0);
    assertThat(readAhead.queued()).isEqualTo(1);
  }

  @Test
  void theEndWaitsBehindQueuedMessages() {
    transport.receive(3, 0);
    readAhead.request(1);
    readAhead.end();
    assertThat(events).containsExactly("message");

    readAhead.request(1);
    assertThat(events).containsExactly("message", "message");
    readAhead.request(5);
    assertThat(events).containsExactly("message", "message", "message", "end");
  }

  @Test
  void anEndWithNothingQueuedIsDeliveredAtOnce() {
    readAhead.request(1);
    readAhead.end();
    assertThat(events).containsExactly("end");
  }

  @Test
  void discardingDropsQueuedMessagesAndLetsTheEndThroughAtOnce() {
    List<TrackedMessage> messages = transport.receive(5, 8);
    readAhead.request(1);
    readAhead.end(); // waits behind four queued messages
    assertThat(events).containsExactly("message");
    int calls = transport.requestCalls;

    readAhead.discard();

    assertThat(events).containsExactly("message", "end");
    assertThat(messages.subList(1, 5)).allMatch(m -> m.closed);
    readAhead.request(3);
    assertThat(events).containsExactly("message", "end");
    assertThat(transport.requestCalls).isEqualTo(calls);
  }

  @Test
  void anEndAfterADiscardIsDeliveredAtOnce() {
    transport.receive(5, 8);
    readAhead.request(1);
    readAhead.discard();
    TrackedMessage late = new TrackedMessage(9, 3);
    readAhead.messageRead(late);
    assertThat(late.closed).isTrue();

    readAhead.end();

    assertThat(events).containsExactly("message", "end");
  }

  @Test
  void closingDropsAndClosesQueuedMessagesAndStopsEverything() {
    List<TrackedMessage> messages = transport.receive(5, 8);
    readAhead.request(1);
    assertThat(readAhead.queued()).isEqualTo(4);
    int calls = transport.requestCalls;

    readAhead.closed();
    readAhead.request(10);
    readAhead.end();

    assertThat(delivered).containsExactly(0);
    assertThat(events).containsExactly("message");
    assertThat(transport.requestCalls).isEqualTo(calls);
    assertThat(messages.subList(1, 5)).allMatch(m -> m.closed);
    assertThat(readAhead.queued()).isZero();
  }

  @Test
  void aMessageReadAfterTheCloseIsClosed() {
    readAhead.request(1);
    readAhead.closed();
    TrackedMessage late = new TrackedMessage(0, 3);

    readAhead.messageRead(late);

    assertThat(late.closed).isTrue();
    assertThat(delivered).isEmpty();
  }

  @Test
  void anApplicationThatRequestsFromInsideItsCallbackDoesNotRecurse() {
    AtomicInteger depth = new AtomicInteger();
    AtomicInteger maxDepth = new AtomicInteger();
    ReadAhead[] self = new ReadAhead[1];
    self[0] =
        new ReadAhead(
            transport::request,
            new ReadAhead.Sink() {
              @Override
              public void deliver(InputStream message) {
                maxDepth.accumulateAndGet(depth.incrementAndGet(), Math::max);
                delivered.add(first(message));
                self[0].request(1); // a direct executor: the stub asks for the next one inline
                depth.decrementAndGet();
              }

              @Override
              public void end() {}
            });
    readAhead = self[0];
    transport.receive(5000, 0);

    readAhead.request(1);

    assertThat(delivered).hasSize(5000).isSorted();
    assertThat(maxDepth.get()).isEqualTo(1);
  }

  /**
   * A transport thread feeding messages and an application thread taking them one at a time from
   * its executor, as a streaming call does: each message arrives exactly once, in order, and the
   * half-close after the last.
   */
  @Test
  void concurrentTransportAndApplicationThreadsLoseNothing() throws Exception {
    int total = 200_000;
    ExecutorService transportThread = Executors.newSingleThreadExecutor();
    ExecutorService applicationThread = Executors.newSingleThreadExecutor();
    try {
      List<Integer> received = new ArrayList<>(); // application thread only
      CountDownLatch halfClosed = new CountDownLatch(1);
      ThreadTransport threaded = new ThreadTransport(transportThread);
      SerializingExecutor callbacks = new SerializingExecutor(applicationThread);
      ReadAhead[] self = new ReadAhead[1];
      self[0] =
          new ReadAhead(
              threaded::request,
              new ReadAhead.Sink() {
                @Override
                public void deliver(InputStream message) {
                  callbacks.execute(
                      () -> {
                        received.add(first(message));
                        self[0].request(1);
                      });
                }

                @Override
                public void end() {
                  callbacks.execute(halfClosed::countDown);
                }
              });
      threaded.readAhead = self[0];
      transportThread.execute(() -> threaded.sendAll(total));
      callbacks.execute(() -> self[0].request(1));

      assertThat(halfClosed.await(60, TimeUnit.SECONDS)).isTrue();
      List<Integer> copy = applicationThread.submit(() -> new ArrayList<>(received)).get();
      assertThat(copy).hasSize(total);
      for (int i = 0; i < total; i++) {
        assertThat(copy.get(i)).isEqualTo(i);
      }
    } finally {
      transportThread.shutdownNow();
      applicationThread.shutdownNow();
    }
  }

  private static int first(InputStream message) {
    return ((UnknownLengthMessage) message).index;
  }

  /** A message that remembers whether it was closed; its length is not known up front. */
  private static class UnknownLengthMessage extends ByteArrayInputStream {
    final int index;
    boolean closed;

    UnknownLengthMessage(int index, int size) {
      super(new byte[size]);
      this.index = index;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** A message of known length, as the deframer delivers uncompressed ones. */
  private static final class TrackedMessage extends UnknownLengthMessage implements KnownLength {
    TrackedMessage(int index, int size) {
      super(index, size);
    }
  }

  /** Delivers received messages against requests, on the caller's thread, deframer-style. */
  private final class FakeTransport {
    private final ArrayDeque<InputStream> held = new ArrayDeque<>();
    private long requested;
    private boolean delivering;
    private int next;
    int taken;
    int requestCalls;

    List<TrackedMessage> receive(int count, int size) {
      List<TrackedMessage> made = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        TrackedMessage message = new TrackedMessage(next++, size);
        made.add(message);
        held.add(message);
      }
      deliver();
      return made;
    }

    void receiveUnknownLength(int index) {
      held.add(new UnknownLengthMessage(index, 10));
      next++;
      deliver();
    }

    long heldBytes() {
      return held.stream().mapToLong(m -> ((UnknownLengthMessage) m).available()).sum();
    }

    void request(int n) {
      requestCalls++;
      requested += n;
      deliver();
    }

    private void deliver() {
      if (delivering) {
        return;
      }
      delivering = true;
      try {
        while (requested > 0 && !held.isEmpty()) {
          requested--;
          taken++;
          readAhead.messageRead(held.poll());
        }
      } finally {
        delivering = false;
      }
    }
  }

  /**
   * A transport with a thread of its own, like an event loop: a request made on that thread acts
   * when the current delivery returns, one from another thread is handed over to it. Messages go
   * out only against requests, then the half-close.
   */
  private static final class ThreadTransport {
    private final ExecutorService thread;
    private final ThreadLocal<Boolean> onThread = ThreadLocal.withInitial(() -> false);
    ReadAhead readAhead;
    // Transport thread only.
    private long requested;
    private int sent;
    private int total = -1;
    private boolean pumping;
    private boolean halfClosed;

    ThreadTransport(ExecutorService thread) {
      this.thread = thread;
    }

    void request(int n) {
      if (onThread.get()) {
        requested += n;
        pump();
      } else {
        thread.execute(
            () -> {
              onThread.set(true);
              requested += n;
              pump();
            });
      }
    }

    void sendAll(int count) {
      onThread.set(true);
      total = count;
      pump();
    }

    private void pump() {
      if (pumping) {
        return;
      }
      pumping = true;
      try {
        while (requested > 0 && sent < total) {
          requested--;
          readAhead.messageRead(new TrackedMessage(sent++, 0));
        }
        if (sent == total && !halfClosed) {
          halfClosed = true;
          readAhead.end();
        }
      } finally {
        pumping = false;
      }
    }
  }
}
