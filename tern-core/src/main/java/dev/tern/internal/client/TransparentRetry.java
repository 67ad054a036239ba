package dev.tern.internal.client;

import dev.tern.Status;
import dev.tern.spi.ClientStreamListener.RpcProgress;

/**
 * gRFC A6's transparent retries, for calls with and without a retry policy. A stream the server
 * refused before its application saw it ({@link RpcProgress#REFUSED}: REFUSED_STREAM, or above a
 * GOAWAY's last stream id) is sent again at once, once per attempt; if that fails too, the call's
 * retry policy (or none) decides. A stream that never left the client ({@link RpcProgress#DROPPED})
 * is sent again without limit in A6; here at most {@value #MAX_DROPPED} times per call (per attempt
 * under a retry or hedging policy, whose attempts are few), so that a transport that drops every
 * stream (a picker still offering a connection that has closed) fails the call with UNAVAILABLE
 * saying so instead of picking in a loop until the deadline, or forever without one. Neither counts
 * as an attempt of the policy.
 *
 * <p>The state of a call is one int (bit 0: the refused retry of the current attempt is spent; the
 * bits above: how many dropped streams were sent again), so that a call keeps it without an
 * allocation. Stateless; safe from any thread.
 */
public final class TransparentRetry {
  /**
   * How many streams that never left the client a call sends again: more than the connections of
   * any realistic channel that could all close under one call, few enough that giving up costs no
   * more than a hundred picks.
   */
  public static final int MAX_DROPPED = 100;

  /** The state of a call that has not been retried transparently. */
  public static final int NONE = 0;

  /** Returned by {@link #next} when the stream is not to be sent again transparently. */
  public static final int NO = -1;

  private static final int REFUSED_SPENT = 1;

  private TransparentRetry() {}

  /**
   * The state after a stream closed with {@code progress} is sent again transparently, or {@link
   * #NO} when it may not be (processed by the server, a second refusal in the attempt, or the
   * {@value #MAX_DROPPED}th dropped stream of the call).
   */
  public static int next(int state, RpcProgress progress) {
    if (progress == RpcProgress.REFUSED) {
      return (state & REFUSED_SPENT) == 0 ? state | REFUSED_SPENT : NO;
    }
    if (progress == RpcProgress.DROPPED) {
      return dropped(state) < MAX_DROPPED ? state + 2 : NO;
    }
    return NO;
  }

  /** How many dropped streams of the call were sent again. */
  public static int dropped(int state) {
    return state >>> 1;
  }

  /**
   * The status to report for a stream closed with {@code progress} that {@link #next} did not send
   * again: {@code status}, or for the dropped stream that used up the bound, {@code status} saying
   * so.
   */
  public static Status reported(Status status, int state, RpcProgress progress) {
    if (progress != RpcProgress.DROPPED || dropped(state) < MAX_DROPPED) {
      return status;
    }
    return droppedTooOften(status);
  }

  /** {@code status} saying that the call gave up on streams that never left the client. */
  public static Status droppedTooOften(Status status) {
    return status.augmentDescription(
        "gave up after "
            + MAX_DROPPED
            + " transparent retries of streams that never left the client");
  }
}
