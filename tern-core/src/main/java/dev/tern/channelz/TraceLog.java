package dev.tern.channelz;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;

/**
 * The trace of one channel or subchannel: the last {@link #CAPACITY} events, and the count of all
 * events ever logged. Events are rare (state changes, connections), never per call.
 *
 * <p>Thread-safe: a private lock guards the buffer; it is held only to add or copy.
 */
public final class TraceLog {
  /** How many events are kept; older ones are dropped (and still counted). */
  public static final int CAPACITY = 32;

  private final Instant created = Instant.now();
  private final Object lock = new Object();
  private final ArrayDeque<TraceEvent> events = new ArrayDeque<>(CAPACITY);
  private long logged;

  /** An empty trace, created now. */
  public TraceLog() {}

  /** Logs an event about this object. */
  public void add(String description, TraceEvent.Severity severity) {
    add(new TraceEvent(description, severity, Instant.now(), null, false));
  }

  /** Logs {@code event}, dropping the oldest one if the buffer is full. */
  public void add(TraceEvent event) {
    Objects.requireNonNull(event, "event");
    synchronized (lock) {
      if (events.size() == CAPACITY) {
        events.removeFirst();
      }
      events.addLast(event);
      logged++;
    }
  }

  /** The events kept and the count of all logged. */
  public ChannelTrace snapshot() {
    synchronized (lock) {
      return new ChannelTrace(created, logged, List.copyOf(events));
    }
  }
}
