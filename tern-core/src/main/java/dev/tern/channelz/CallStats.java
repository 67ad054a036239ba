package dev.tern.channelz;

import java.time.Instant;

/**
 * Call counts of a channel, subchannel or server at one moment.
 *
 * @param started calls started
 * @param succeeded calls that ended OK
 * @param failed calls that ended with another status
 * @param lastStarted when the last call started; null if none has
 */
public record CallStats(long started, long succeeded, long failed, Instant lastStarted) {
  /** No calls. */
  public static final CallStats NONE = new CallStats(0, 0, 0, null);

  /** The sum of this and {@code other}, with the later of the two last-started times. */
  public CallStats plus(CallStats other) {
    Instant last = lastStarted;
    if (other.lastStarted != null && (last == null || other.lastStarted.isAfter(last))) {
      last = other.lastStarted;
    }
    return new CallStats(
        started + other.started, succeeded + other.succeeded, failed + other.failed, last);
  }
}
