package dev.tern.channelz;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A snapshot of a {@link TraceLog}.
 *
 * @param created when the traced object was created
 * @param eventsLogged how many events were ever logged (more than {@code events} holds once the
 *     oldest were dropped)
 * @param events the most recent events, oldest first
 */
public record ChannelTrace(Instant created, long eventsLogged, List<TraceEvent> events) {
  /** Copies {@code events}. */
  public ChannelTrace {
    Objects.requireNonNull(created, "created");
    events = List.copyOf(events);
  }
}
