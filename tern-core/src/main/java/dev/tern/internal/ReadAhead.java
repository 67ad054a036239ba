package dev.tern.internal;

import dev.tern.KnownLength;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps a few inbound messages of a streaming call ready before the application asks for them, so
 * that an application asking for one message at a time (as the stubs do) gets the next one from
 * here instead of through a request to the transport's thread and a delivery back: two thread
 * hand-offs per message, which bound a one-way stream to a few tens of thousands of messages a
 * second.
 *
 * <p>How far ahead: the transport is asked for one message beyond what the application asked for,
 * and asked again each time one arrives, which costs nothing there (the transport's thread calls
 * {@link #messageRead}, and a request made on that thread acts at once). So the queue fills from
 * whatever the transport has already received, up to {@link #MAX_MESSAGES} messages or {@link
 * #MAX_BYTES} bytes. The application's own thread asks ahead only once the queue has run down to
 * {@link #LOW_WATER} with nothing requested from the transport, one hand-off per refill. A message
 * taken ahead has been read from the transport, so its flow-control window is returned: at most
 * {@link #MAX_BYTES} plus one message (the one asked for ahead, of any size up to the inbound
 * limit) are held beyond what the application requested. A compressed message counts as {@link
 * #MAX_BYTES} (its size is unknown until read), so at most one waits.
 *
 * <p>Order: messages reach the {@link Sink} in the order read and only against the application's
 * requests; the transport's {@link #end} (a half-close on a server, the close on a client) reaches
 * it after every message read before it, as a deframer holds the status behind unread messages.
 * {@link #discard} (the application cancelled) drops what is queued and lets the end through at
 * once; {@link #closed} (a server stream gone) drops everything, the end included.
 *
 * <p>Thread-safety: safe for concurrent use. The transport calls {@link #messageRead} and {@link
 * #end} one at a time; the application calls {@link #request}, and the runtime {@link #discard} or
 * {@link #closed}, from any thread. State is guarded by {@code this}; the sink and the stream are
 * called without the lock, by one thread at a time (the one that holds the {@code pumping} role),
 * so a sink that runs the application inline (a direct executor) may call {@link #request} back
 * without recursion.
 */
public final class ReadAhead {
  private static final Logger logger = Logger.getLogger(ReadAhead.class.getName());

  /** Most messages waiting for the application's requests. */
  static final int MAX_MESSAGES = 32;

  /** Most bytes waiting for the application's requests (a message of this size or more: one). */
  static final int MAX_BYTES = 64 * 1024;

  /** Queue length at or below which the application's thread asks ahead (one hand-off). */
  static final int LOW_WATER = 8;

  /** What each message is counted as beyond its own bytes: its gRPC prefix. */
  private static final int PREFIX_BYTES = 5;

  /** Where messages go once requested (typically onto the call's serializing executor). */
  public interface Sink {
    /** One requested message; the sink owns it. */
    void deliver(InputStream message);

    /** The transport's end (see {@link ReadAhead#end}); comes after every message delivered. */
    void end();
  }

  /** Asks the transport for messages ({@code Stream.request}, through whatever wraps it). */
  private final IntConsumer transport;

  private final Sink sink;

  // All guarded by this.
  private final ArrayDeque<InputStream> queue = new ArrayDeque<>();
  private long queuedBytes;

  /** Requested by the application and not yet delivered. */
  private long demand;

  /** Requested from the transport and not yet read. */
  private long outstanding;

  /** The transport's end waits for the queue to empty. */
  private boolean endPending;

  /** Messages are dropped and nothing is requested ({@link #discard} or {@link #closed}). */
  private boolean discarding;

  /** Nothing more reaches the sink (the end was delivered, or {@link #closed}). */
  private boolean closed;

  /** One thread at a time delivers and asks the transport; others leave their work to it. */
  private boolean pumping;

  /** State changed while another thread was pumping: it must look again. */
  private boolean again;

  /** That change came from the transport's thread, where asking ahead is free. */
  private boolean againFromTransport;

  public ReadAhead(IntConsumer transport, Sink sink) {
    this.transport = transport;
    this.sink = sink;
  }

  /** The application asks for {@code numMessages} (positive) more messages. Any thread. */
  public void request(int numMessages) {
    synchronized (this) {
      if (discarding) {
        return;
      }
      demand += numMessages;
    }
    pump(false);
  }

  /** A message the transport read (the transport's thread). Owns {@code message}. */
  public void messageRead(InputStream message) {
    synchronized (this) {
      if (!discarding) {
        outstanding = Math.max(0, outstanding - 1);
        queue.add(message);
        queuedBytes += weight(message);
        message = null;
      }
    }
    if (message != null) {
      closeQuietly(message);
      return;
    }
    pump(true);
  }

  /**
   * The transport delivers nothing more (the client half-closed, or the client's stream closed):
   * the sink hears {@link Sink#end} once every message read before has been delivered, or at once
   * after {@link #discard}. Called once, on the transport's thread.
   */
  public void end() {
    synchronized (this) {
      if (closed) {
        return;
      }
      endPending = true;
    }
    pump(true);
  }

  /**
   * The application will take no more messages (its call was cancelled): queued messages are
   * dropped (closed), later ones too, and nothing is requested any more; {@link #end} is still
   * delivered, without waiting.
   */
  public void discard() {
    dropQueue(false);
    pump(false);
  }

  /**
   * The stream is gone: queued messages are dropped and nothing more, not even the end, arrives.
   */
  public void closed() {
    dropQueue(true);
  }

  private void dropQueue(boolean close) {
    List<InputStream> dropped;
    synchronized (this) {
      discarding = true;
      if (close) {
        closed = true;
        endPending = false;
      }
      dropped = new ArrayList<>(queue);
      queue.clear();
      queuedBytes = 0;
    }
    for (InputStream message : dropped) {
      closeQuietly(message);
    }
  }

  /** Messages waiting for the application's requests (for tests). */
  synchronized int queued() {
    return queue.size();
  }

  /**
   * Delivers what the application asked for and asks the transport for what is missing, until
   * nothing is left to do; if another thread is at it, leaves the work to that thread.
   */
  private void pump(boolean fromTransport) {
    synchronized (this) {
      if (pumping) {
        again = true;
        againFromTransport |= fromTransport;
        return;
      }
      pumping = true;
    }
    while (true) {
      InputStream message = null;
      boolean end = false;
      int request = 0;
      synchronized (this) {
        if (endPending && queue.isEmpty()) {
          endPending = false;
          closed = true; // nothing comes after the end
          end = true;
        } else if (discarding || closed) {
          pumping = false;
          return;
        } else if (demand > 0 && !queue.isEmpty()) {
          message = queue.poll();
          queuedBytes -= weight(message);
          demand--;
        } else {
          request = transportRequest(fromTransport || againFromTransport);
          outstanding += request;
          if (request == 0 && !again) {
            pumping = false;
            return;
          }
          again = false;
          againFromTransport = false;
        }
      }
      if (message != null) {
        sink.deliver(message);
      } else if (end) {
        sink.end();
      } else if (request > 0) {
        transport.accept(request);
      }
    }
  }

  /**
   * How many messages to ask the transport for now: what the application asked for and nothing
   * covers yet, plus one ahead when nothing ahead is outstanding and the queue has room. Called
   * once the queue holds nothing the application asked for (demand > 0 only with an empty queue).
   */
  private int transportRequest(boolean cheap) {
    long uncovered = demand - queue.size() - outstanding;
    long request = Math.max(0, Math.min(uncovered, Integer.MAX_VALUE - 1));
    boolean aheadOutstanding = outstanding + request > demand;
    if (!aheadOutstanding
        && !endPending
        && queue.size() < MAX_MESSAGES
        && queuedBytes < MAX_BYTES
        && (cheap || (outstanding + request == 0 && queue.size() <= LOW_WATER))) {
      request++;
    }
    return (int) request;
  }

  /** What a queued message counts for against {@link #MAX_BYTES}. */
  private static long weight(InputStream message) {
    if (!(message instanceof KnownLength)) {
      return MAX_BYTES;
    }
    try {
      return (long) message.available() + PREFIX_BYTES;
    } catch (IOException e) {
      return MAX_BYTES;
    }
  }

  private static void closeQuietly(InputStream message) {
    try {
      message.close();
    } catch (IOException e) {
      logger.log(Level.FINE, "Failed to close a dropped message", e);
    }
  }
}
