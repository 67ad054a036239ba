package dev.tern.channelz;

import java.time.Instant;
import java.util.Objects;

/**
 * One event in a channel's or subchannel's trace: a state change, a subchannel created, an address
 * tried.
 *
 * @param description what happened, for people
 * @param severity how much it matters
 * @param timestamp when it happened
 * @param child the subchannel (or child channel) the event is about, or null
 * @param childIsSubchannel whether {@code child} is a subchannel (else a channel)
 */
public record TraceEvent(
    String description,
    Severity severity,
    Instant timestamp,
    Ref child,
    boolean childIsSubchannel) {

  /** How much an event matters. */
  public enum Severity {
    /** Normal operation. */
    INFO,
    /** Something went wrong and may recover (a connection failed). */
    WARNING,
    /** Something failed for good. */
    ERROR
  }

  /** Checks the arguments. */
  public TraceEvent {
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(severity, "severity");
    Objects.requireNonNull(timestamp, "timestamp");
  }
}
